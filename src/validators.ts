import { Ajv, addFormats } from '@feathersjs/schema'
import type { FormatsPluginOptions } from '@feathersjs/schema'

const formats: FormatsPluginOptions = ['date-time', 'date', 'email', 'uri']

export const dataValidator = addFormats(new Ajv({}), formats)
