import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { ByUserSpec, byUserOperations, byUserRoute } from '../by-user'
import { isFirstOfMonth } from '../../timesheets/periods'
import { timeSheetMonthResource } from './time-sheet-months.schema'

export const monthByUser = {
  resource: timeSheetMonthResource,
  param: 'month',
  rule: { test: isFirstOfMonth, message: 'the first day of a month' },
  wanted: (month) => ({ months: [month] })
} satisfies ByUserSpec

/** `/v1/time-sheet-months` and `/v1/time-sheet-months/by-user`; months are created on demand, never by POST. */
export const timeSheetMonths = (app: Application) => {
  registerResource(app, timeSheetMonthResource, {
    operations: (tools) => byUserOperations(tools, monthByUser),
    routes: [byUserRoute(monthByUser)]
  })
}
