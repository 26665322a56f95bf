import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { assignmentTypeResource } from './assignment-types.schema'

export const assignmentTypes = (app: Application) => registerResource(app, assignmentTypeResource)
