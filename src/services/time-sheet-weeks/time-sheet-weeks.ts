import type { Application } from '../../declarations'
import { registerResource } from '../../resources/register'
import { ByUserSpec, byUserOperations, byUserRoute } from '../by-user'
import { isMonday } from '../../timesheets/periods'
import { timeSheetWeekResource } from './time-sheet-weeks.schema'

export const weekByUser = {
  resource: timeSheetWeekResource,
  param: 'weekStart',
  rule: { test: isMonday, message: 'a Monday (the first day of an ISO week)' },
  wanted: (weekStart) => ({ weekStarts: [weekStart] })
} satisfies ByUserSpec

/** `/v1/time-sheet-weeks` and `/v1/time-sheet-weeks/by-user`; weeks are created on demand, never by POST. */
export const timeSheetWeeks = (app: Application) => {
  registerResource(app, timeSheetWeekResource, {
    operations: (tools) => byUserOperations(tools, weekByUser),
    routes: [byUserRoute(weekByUser)]
  })
}
