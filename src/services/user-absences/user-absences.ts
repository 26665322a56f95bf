import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { userAbsenceResource } from './user-absences.schema'

export const userAbsences = (app: Application) => registerResource(app, userAbsenceResource)
