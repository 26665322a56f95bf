import type { PlannedWrite, Row, WriteContext } from '../../resources/define-resource'
import { defaultOrder } from '../../resources/ordering'
import { lockUserTime, recomputeSpans } from '../../timesheets/recompute'
import { logRecomputed } from '../../timesheets/events'
import type { Day } from '../../timesheets/calendar'
import { coveredSpan } from '../user-absences/user-absences.rules'

/** Whether the write changes how the type's approved absences count, so their days must be recomputed. */
export interface AbsenceTypePlan {
  recompute: boolean
}

export async function planAbsenceTypeWrite(write: WriteContext<AbsenceTypePlan>) {
  await defaultOrder(write, 'user_absence_types')
  const { method, data, existing } = write
  write.plan = {
    recompute:
      method === 'patch' &&
      data.needCompensation !== undefined &&
      Boolean(data.needCompensation) !== Boolean(existing?.needCompensation)
  }
}

/**
 * `needCompensation` decides whether an approved absence of the type keeps the day's target
 * (CONTRACT §7.3, §11.5), so a PATCH that changes it changes the figures of every day such an
 * absence covers. Those days are recomputed in the PATCH's transaction, user by user in id order
 * (the lock order of a company-wide recomputation), and the rows that changed are logged: approved
 * days keep their figures and are flagged `recomputable`, locked months keep their snapshot. The
 * work follows the type's approved absences, one span each, never the length of a span.
 */
export async function recomputeAbsencesOfType(id: number, write: PlannedWrite<AbsenceTypePlan>) {
  if (!write.plan.recompute) return
  const { trx, companyId, params } = write
  const zone = params.company!.timezone
  const absences: Row[] = await trx('user_absences')
    .where({ companyId, typeId: id, status: 'approved' })
    .select('userId', 'startsAt', 'endsAt')
  const spans = new Map<number, { from: Day; to: Day }[]>()
  for (const absence of absences) {
    const userId = Number(absence.userId)
    spans.set(userId, [...(spans.get(userId) ?? []), coveredSpan(absence, zone)])
  }
  for (const userId of [...spans.keys()].sort((a, b) => a - b)) {
    await lockUserTime(trx, { companyId, userId })
    logRecomputed(write, await recomputeSpans(trx, { companyId, userId, spans: spans.get(userId)! }))
  }
}
