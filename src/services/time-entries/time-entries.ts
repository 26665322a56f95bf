import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { timeEntryResource } from './time-entries.schema'

export const timeEntries = (app: Application) => registerResource(app, timeEntryResource)
