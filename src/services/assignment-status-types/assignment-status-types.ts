import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { assignmentStatusTypeResource } from './assignment-status-types.schema'

export const assignmentStatusTypes = (app: Application) => registerResource(app, assignmentStatusTypeResource)
