import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { assignmentEventGroupTypeResource } from './assignment-event-group-types.schema'

export const assignmentEventGroupTypes = (app: Application) => registerResource(app, assignmentEventGroupTypeResource)
