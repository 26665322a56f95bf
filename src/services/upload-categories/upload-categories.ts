import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { uploadCategoryResource } from './upload-categories.schema'

export const uploadCategories = (app: Application) => registerResource(app, uploadCategoryResource)
