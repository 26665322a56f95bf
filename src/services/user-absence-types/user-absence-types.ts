import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { userAbsenceTypeResource } from './user-absence-types.schema'

export const userAbsenceTypes = (app: Application) => registerResource(app, userAbsenceTypeResource)
