import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { assignmentEventGroupResource } from './assignment-event-groups.schema'

export const assignmentEventGroups = (app: Application) => registerResource(app, assignmentEventGroupResource)
