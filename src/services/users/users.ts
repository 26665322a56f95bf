import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { userResource } from './users.schema'

export const users = (app: Application) => registerResource(app, userResource)
