import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { projectResource } from './projects.schema'

export const projects = (app: Application) => registerResource(app, projectResource)
