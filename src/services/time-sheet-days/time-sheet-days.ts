import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { ByUserSpec, byUserOperations, byUserRoute } from '../by-user'
import { timeSheetDayResource } from './time-sheet-days.schema'

export const dayByUser = {
  resource: timeSheetDayResource,
  param: 'day',
  wanted: (day) => ({ days: [day] })
} satisfies ByUserSpec

/** `/v1/time-sheet-days` and `/v1/time-sheet-days/by-user`. */
export const timeSheetDays = (app: Application) => {
  registerResource(app, timeSheetDayResource, {
    operations: (tools) => byUserOperations(tools, dayByUser),
    routes: [byUserRoute(dayByUser)]
  })
}
