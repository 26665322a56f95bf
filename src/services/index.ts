import type { Application } from '../declarations'
import { customers } from './customers/customers'
import { roles } from './roles/roles'
import { users } from './users/users'
import { projects } from './projects/projects'
import { gangs } from './gangs/gangs'
import { assignmentTypes } from './assignment-types/assignment-types'
import { assignmentStatusTypes } from './assignment-status-types/assignment-status-types'
import { assignmentEventTypes } from './assignment-event-types/assignment-event-types'
import { assignmentEventGroupTypes } from './assignment-event-group-types/assignment-event-group-types'
import { timeEntryTypes } from './time-entry-types/time-entry-types'
import { userAbsenceTypes } from './user-absence-types/user-absence-types'
import { uploadCategories } from './upload-categories/upload-categories'
import { timeEntries } from './time-entries/time-entries'
import { userAbsences } from './user-absences/user-absences'
import { userWorkingTimes } from './user-working-times/user-working-times'
import { assignments } from './assignments/assignments'
import { assignmentEventGroups } from './assignment-event-groups/assignment-event-groups'
import { assignmentEvents } from './assignment-events/assignment-events'
import { uploads } from './uploads/uploads'
import { timeSheetDays } from './time-sheet-days/time-sheet-days'
import { timeSheetWeeks } from './time-sheet-weeks/time-sheet-weeks'
import { timeSheetMonths } from './time-sheet-months/time-sheet-months'
import { changes } from './changes/changes'
import { webhookSubscriptions } from './webhook-subscriptions/webhook-subscriptions'

/** Every /v1 service; each is a declaration registered through the shared machinery. */
export const services = (app: Application) => {
  app.configure(customers)
  app.configure(roles)
  app.configure(users)
  app.configure(projects)
  app.configure(gangs)
  app.configure(assignmentTypes)
  app.configure(assignmentStatusTypes)
  app.configure(assignmentEventTypes)
  app.configure(assignmentEventGroupTypes)
  app.configure(timeEntryTypes)
  app.configure(userAbsenceTypes)
  app.configure(uploadCategories)
  app.configure(timeEntries)
  app.configure(userAbsences)
  app.configure(userWorkingTimes)
  app.configure(assignments)
  app.configure(assignmentEventGroups)
  app.configure(assignmentEvents)
  app.configure(uploads)
  app.configure(timeSheetDays)
  app.configure(timeSheetWeeks)
  app.configure(timeSheetMonths)
  app.configure(webhookSubscriptions)
  // After every collection: the feed's event types are theirs.
  app.configure(changes)
}
