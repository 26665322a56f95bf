import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { gangResource } from './gangs.schema'

export const gangs = (app: Application) => registerResource(app, gangResource)
