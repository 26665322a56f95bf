import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { deleteStoredFilesAfterCommit } from '../uploads/stored-files'
import { assignmentResource } from './assignments.schema'

export const assignments = (app: Application) =>
  registerResource(app, assignmentResource, { around: [deleteStoredFilesAfterCommit] })
