import type { ValidationErrors, WriteContext } from '../../resources/define-resource'
import { EARLIEST_DAY, today } from '../../timesheets/periods'

/** Where a user's time account starts (CONTRACT §11.1): `employedFrom` defaults to the day the user is created (company timezone). */
export async function checkAccountWrite(write: WriteContext): Promise<ValidationErrors> {
  const { data, method } = write
  if (typeof data.employedFrom === 'string' && data.employedFrom < EARLIEST_DAY) return { employedFrom: `must not be before ${EARLIEST_DAY}` }
  if (method === 'create' && data.employedFrom === undefined) data.employedFrom = today(write.context.params.company!.timezone)
  return {}
}
