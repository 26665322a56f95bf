import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { roleResource } from './roles.schema'

export const roles = (app: Application) => registerResource(app, roleResource)
