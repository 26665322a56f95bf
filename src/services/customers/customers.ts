import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { customerResource } from './customers.schema'

export const customers = (app: Application) => registerResource(app, customerResource)
