import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { assignmentEventTypeResource } from './assignment-event-types.schema'

export const assignmentEventTypes = (app: Application) => registerResource(app, assignmentEventTypeResource)
