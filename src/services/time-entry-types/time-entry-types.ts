import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { timeEntryTypeResource } from './time-entry-types.schema'

export const timeEntryTypes = (app: Application) => registerResource(app, timeEntryTypeResource)
