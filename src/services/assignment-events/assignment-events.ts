import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { deleteStoredFilesAfterCommit } from '../uploads/stored-files'
import { assignmentEventResource } from './assignment-events.schema'

export const assignmentEvents = (app: Application) =>
  registerResource(app, assignmentEventResource, { around: [deleteStoredFilesAfterCommit] })
