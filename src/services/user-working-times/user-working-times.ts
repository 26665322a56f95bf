import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { userWorkingTimeResource } from './user-working-times.schema'

export const userWorkingTimes = (app: Application) => registerResource(app, userWorkingTimeResource)
