// Generated from the resource declarations by `npm run generate:client`; do not edit.

import type {
  Collection,
  EqualityFilter,
  Feed,
  Lookup,
  OneOfFilter,
  RangeFilter,
  SortOf,
  TextFilter,
  UploadFile
} from './definitions'

// Customer: /v1/customers
/** A Customer as the API answers it. */
export interface Customer {
  id: number
  number: string | null
  /** Required unless `surname` is given. */
  companyName: string | null
  externalId: string | null
  title: string | null
  salutation: string | null
  firstName: string | null
  /** Required unless `companyName` is given. */
  surname: string | null
  telephones: Telephone[] | null
  emails: CustomerEmail[] | null
  urls: CustomerUrl[] | null
  billingAddress: Address | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/**
 * The body of `POST /v1/customers`.
 * `companyName` or `surname` is required (a non-empty text), and a PATCH may not clear the last of the two.
 */
export type CustomerData = {
  number?: string | null
  /** Required unless `surname` is given. */
  companyName?: string | null
  externalId?: string | null
  title?: string | null
  salutation?: string | null
  firstName?: string | null
  /** Required unless `companyName` is given. */
  surname?: string | null
  telephones?: Telephone[] | null
  emails?: CustomerEmail[] | null
  urls?: CustomerUrl[] | null
  billingAddress?: AddressInput | null
} & (
  | {
      companyName: string
    }
  | {
      surname: string
    }
)

/** The body of `PATCH /v1/customers/{id}`: fields left out keep their value. */
export interface CustomerPatch {
  number?: string | null
  /** Required unless `surname` is given. */
  companyName?: string | null
  externalId?: string | null
  title?: string | null
  salutation?: string | null
  firstName?: string | null
  /** Required unless `companyName` is given. */
  surname?: string | null
  telephones?: Telephone[] | null
  emails?: CustomerEmail[] | null
  urls?: CustomerUrl[] | null
  billingAddress?: AddressInput | null
}

/** The list query of `GET /v1/customers`: exactly its filters, operators and sort keys. */
export interface CustomerQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'number' | 'companyName' | 'externalId' | 'createdAt' | 'updatedAt'>
  id?: number | null | RangeFilter<number>
  number?: string | null | TextFilter
  companyName?: string | null | TextFilter
  externalId?: string | null | TextFilter
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// Project: /v1/projects
/** A Project as the API answers it. */
export interface Project {
  id: number
  number: string
  externalId: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The body of `POST /v1/projects`. */
export interface ProjectData {
  number: string
  externalId?: string | null
}

/** The body of `PATCH /v1/projects/{id}`: fields left out keep their value. */
export interface ProjectPatch {
  number?: string
  externalId?: string | null
}

/** The list query of `GET /v1/projects`: exactly its filters, operators and sort keys. */
export interface ProjectQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'number' | 'externalId' | 'createdAt' | 'updatedAt'>
  id?: number | null | RangeFilter<number>
  number?: string | null | TextFilter
  externalId?: string | null | TextFilter
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// User: /v1/users
/** A User as the API answers it. */
export interface User {
  id: number
  fullName: string
  email: string
  shortName: string | null
  staffNumber: string | null
  color: string | null
  roleId: number
  roleType: 'admin' | 'office' | 'worker'
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  deactivatedAt: string | null
  externalId: string | null
  /**
   * The first day of the time account (company timezone); days before it have target 0. Default: the day the user is created.
   * A date, `YYYY-MM-DD`.
   */
  employedFrom: string
  /** Overtime balance in minutes brought over from a previous system: the carry-in of the month of employedFrom. */
  openingBalance: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The body of `POST /v1/users`. */
export interface UserData {
  fullName: string
  email: string
  password?: string | null
  shortName?: string | null
  staffNumber?: string | null
  color?: string | null
  roleId?: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  deactivatedAt?: string | null
  externalId?: string | null
  /**
   * The first day of the time account (company timezone); days before it have target 0. Default: the day the user is created.
   * A date, `YYYY-MM-DD`.
   */
  employedFrom?: string
  /** Overtime balance in minutes brought over from a previous system: the carry-in of the month of employedFrom. */
  openingBalance?: number
}

/** The body of `PATCH /v1/users/{id}`: fields left out keep their value. */
export interface UserPatch {
  fullName?: string
  email?: string
  password?: string | null
  shortName?: string | null
  staffNumber?: string | null
  color?: string | null
  roleId?: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  deactivatedAt?: string | null
  externalId?: string | null
  /**
   * The first day of the time account (company timezone); days before it have target 0. Default: the day the user is created.
   * A date, `YYYY-MM-DD`.
   */
  employedFrom?: string
  /** Overtime balance in minutes brought over from a previous system: the carry-in of the month of employedFrom. */
  openingBalance?: number
}

/** The list query of `GET /v1/users`: exactly its filters, operators and sort keys. */
export interface UserQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<
    | 'id'
    | 'roleId'
    | 'fullName'
    | 'email'
    | 'shortName'
    | 'roleType'
    | 'staffNumber'
    | 'deactivatedAt'
    | 'externalId'
    | 'employedFrom'
    | 'openingBalance'
    | 'createdAt'
    | 'updatedAt'
  >
  id?: number | null | RangeFilter<number>
  roleId?: number | null | RangeFilter<number>
  fullName?: string | null | TextFilter
  email?: string | null | TextFilter
  shortName?: string | null | TextFilter
  roleType?: 'admin' | 'office' | 'worker' | null | EqualityFilter<'admin' | 'office' | 'worker'>
  staffNumber?: string | null | TextFilter
  deactivatedAt?: string | null | RangeFilter<string>
  externalId?: string | null | TextFilter
  employedFrom?: string | null | RangeFilter<string>
  openingBalance?: number | null | RangeFilter<number>
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// Gang: /v1/gangs
/** A Gang as the API answers it. */
export interface Gang {
  id: number
  name: string
  order: number
  userIds: number[]
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  deactivatedAt: string | null
  externalId: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The body of `POST /v1/gangs`. */
export interface GangData {
  name: string
  order?: number
  userIds?: number[] | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  deactivatedAt?: string | null
  externalId?: string | null
}

/** The body of `PATCH /v1/gangs/{id}`: fields left out keep their value. */
export interface GangPatch {
  name?: string
  order?: number
  userIds?: number[] | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  deactivatedAt?: string | null
  externalId?: string | null
}

/** The list query of `GET /v1/gangs`: exactly its filters, operators and sort keys. */
export interface GangQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'name' | 'externalId' | 'createdAt' | 'updatedAt'>
  id?: number | null | RangeFilter<number>
  name?: string | null | TextFilter
  externalId?: string | null | TextFilter
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// Role: /v1/roles
/** A User role as the API answers it. */
export interface Role {
  id: number
  name: string
  type: 'admin' | 'office' | 'worker'
  order: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The list query of `GET /v1/roles`: exactly its filters, operators and sort keys. */
export interface RoleQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'type'>
  id?: number | null | RangeFilter<number>
  type?: 'admin' | 'office' | 'worker' | null | EqualityFilter<'admin' | 'office' | 'worker'>
}

// AssignmentType: /v1/assignment-types
/** A Assignment Type as the API answers it. */
export interface AssignmentType {
  id: number
  name: string
  color: string | null
  order: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  deactivatedAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The list query of `GET /v1/assignment-types`: exactly its filters, operators and sort keys. */
export interface AssignmentTypeQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'deactivatedAt' | 'createdAt' | 'updatedAt'>
  id?: number | null | RangeFilter<number>
  deactivatedAt?: string | null | RangeFilter<string>
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// AssignmentStatusType: /v1/assignment-status-types
/** A Assignment Status Type as the API answers it. */
export interface AssignmentStatusType {
  id: number
  name: string
  order: number
  category: 'open' | 'inProgress' | 'done' | 'cancelled'
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  deactivatedAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The list query of `GET /v1/assignment-status-types`: exactly its filters, operators and sort keys. */
export interface AssignmentStatusTypeQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'deactivatedAt' | 'createdAt' | 'updatedAt'>
  id?: number | null | RangeFilter<number>
  deactivatedAt?: string | null | RangeFilter<string>
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// AssignmentEventType: /v1/assignment-event-types
/** A Assignment Event Type as the API answers it. */
export interface AssignmentEventType {
  id: number
  name: string
  shortName: string | null
  color: string | null
  order: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  deactivatedAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The list query of `GET /v1/assignment-event-types`: exactly its filters, operators and sort keys. */
export interface AssignmentEventTypeQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'name' | 'deactivatedAt' | 'createdAt' | 'updatedAt'>
  id?: number | null | RangeFilter<number>
  name?: string | null | TextFilter
  deactivatedAt?: string | null | RangeFilter<string>
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// AssignmentEventGroupType: /v1/assignment-event-group-types
/** A Assignment Event Group Type as the API answers it. */
export interface AssignmentEventGroupType {
  id: number
  name: string
  order: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  deactivatedAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The list query of `GET /v1/assignment-event-group-types`: exactly its filters, operators and sort keys. */
export interface AssignmentEventGroupTypeQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'deactivatedAt' | 'createdAt' | 'updatedAt'>
  id?: number | null | RangeFilter<number>
  deactivatedAt?: string | null | RangeFilter<string>
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// TimeEntryType: /v1/time-entry-types
/** A Time Entry Type as the API answers it. */
export interface TimeEntryType {
  id: number
  name: string
  isUnassigned: boolean
  eventTypeId: number | null
  order: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  deactivatedAt: string | null
  externalId: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The body of `POST /v1/time-entry-types`. */
export interface TimeEntryTypeData {
  name: string
  isUnassigned?: boolean
  eventTypeId?: number | null
  order?: number
  externalId?: string | null
}

/** The body of `PATCH /v1/time-entry-types/{id}`: fields left out keep their value. */
export interface TimeEntryTypePatch {
  name?: string
  order?: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  deactivatedAt?: string | null
  externalId?: string | null
}

/** The list query of `GET /v1/time-entry-types`: exactly its filters, operators and sort keys. */
export interface TimeEntryTypeQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<
    | 'id'
    | 'eventTypeId'
    | 'name'
    | 'isUnassigned'
    | 'deactivatedAt'
    | 'order'
    | 'externalId'
    | 'createdAt'
    | 'updatedAt'
  >
  id?: number | null | RangeFilter<number>
  eventTypeId?: number | null | RangeFilter<number>
  name?: string | null | TextFilter
  isUnassigned?: boolean | null | EqualityFilter<boolean>
  deactivatedAt?: string | null | RangeFilter<string>
  order?: number | null | RangeFilter<number>
  externalId?: string | null | TextFilter
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// UserAbsenceType: /v1/user-absence-types
/** A User Absence Type as the API answers it. */
export interface UserAbsenceType {
  id: number
  name: string
  color: string | null
  needApproval: boolean
  needCompensation: boolean
  countAsWorkingTime: boolean
  isAbsenceHourly: boolean
  order: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  deactivatedAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The body of `POST /v1/user-absence-types`. */
export interface UserAbsenceTypeData {
  name: string
  color?: string | null
  needApproval?: boolean
  needCompensation?: boolean
  countAsWorkingTime?: boolean
  isAbsenceHourly?: boolean
  order?: number
}

/** The body of `PATCH /v1/user-absence-types/{id}`: fields left out keep their value. */
export interface UserAbsenceTypePatch {
  name?: string
  color?: string | null
  needApproval?: boolean
  needCompensation?: boolean
  order?: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  deactivatedAt?: string | null
}

/** The list query of `GET /v1/user-absence-types`: exactly its filters, operators and sort keys. */
export interface UserAbsenceTypeQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'deactivatedAt'>
  id?: number | null | RangeFilter<number>
  deactivatedAt?: string | null | RangeFilter<string>
}

// UploadCategory: /v1/upload-categories
/** A Upload Category as the API answers it. */
export interface UploadCategory {
  id: number
  name: string
  color: string | null
  order: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  deactivatedAt: string | null
  roleIds: number[]
  additionalProperties: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The body of `POST /v1/upload-categories`. */
export interface UploadCategoryData {
  name: string
  color?: string | null
  order?: number
  roleIds?: number[] | null
  additionalProperties?: string | null
}

/** The body of `PATCH /v1/upload-categories/{id}`: fields left out keep their value. */
export interface UploadCategoryPatch {
  name?: string
  color?: string | null
  order?: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  deactivatedAt?: string | null
  roleIds?: number[] | null
  additionalProperties?: string | null
}

/** The list query of `GET /v1/upload-categories`: exactly its filters, operators and sort keys. */
export interface UploadCategoryQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'deactivatedAt'>
  id?: number | null | RangeFilter<number>
  deactivatedAt?: string | null | RangeFilter<string>
}

// Assignment: /v1/assignments
/** A Assignment as the API answers it. */
export interface Assignment {
  id: number
  number: string | null
  name: string
  comment: string | null
  notesBackOffice: string | null
  color: string | null
  address: Address | null
  customerId: number
  projectId: number | null
  typeId: number
  responsibleUserId: number | null
  statusId: number
  externalId: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The body of `POST /v1/assignments`. */
export interface AssignmentData {
  number?: string | null
  name: string
  comment?: string | null
  notesBackOffice?: string | null
  color?: string | null
  address?: AddressInput | null
  customerId: number
  projectId?: number | null
  typeId?: number | null
  responsibleUserId?: number | null
  statusId?: number | null
  externalId?: string | null
}

/** The body of `PATCH /v1/assignments/{id}`: fields left out keep their value. */
export interface AssignmentPatch {
  number?: string | null
  name?: string
  comment?: string | null
  notesBackOffice?: string | null
  color?: string | null
  address?: AddressInput | null
  customerId?: number
  projectId?: number | null
  typeId?: number
  responsibleUserId?: number | null
  statusId?: number
  externalId?: string | null
}

/** The list query of `GET /v1/assignments`: exactly its filters, operators and sort keys. */
export interface AssignmentQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<
    | 'id'
    | 'customerId'
    | 'projectId'
    | 'typeId'
    | 'responsibleUserId'
    | 'statusId'
    | 'name'
    | 'number'
    | 'externalId'
    | 'createdAt'
    | 'updatedAt'
  >
  id?: number | null | RangeFilter<number>
  customerId?: number | null | RangeFilter<number>
  projectId?: number | null | RangeFilter<number>
  typeId?: number | null | RangeFilter<number>
  responsibleUserId?: number | null | RangeFilter<number>
  statusId?: number | null | RangeFilter<number>
  name?: string | null | TextFilter
  number?: string | null | TextFilter
  externalId?: string | null | TextFilter
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// AssignmentEvent: /v1/assignment-events
/** A Assignment Event as the API answers it. */
export interface AssignmentEvent {
  id: number
  name: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  startsAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  endsAt: string | null
  plannedEmployeeCount: number | null
  workDays: number | null
  workingTimePerDay: number | null
  manPower: number | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  completedAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  confirmedAt: string | null
  note: string | null
  order: number
  isAllDay: boolean
  isOutward: boolean
  externalId: string | null
  assignmentId: number
  typeId: number
  groupId: number | null
  assignedUsers: number[]
  assignedGangs: number[]
  addressStartFrom: EventAddress | null
  addressDestination: EventAddress | null
  addressReturnTo: EventAddress | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The body of `POST /v1/assignment-events`. */
export interface AssignmentEventData {
  name?: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  startsAt?: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  endsAt?: string | null
  plannedEmployeeCount?: number | null
  workDays?: number | null
  workingTimePerDay?: number | null
  manPower?: number | null
  /**
   * true sets it to now (an existing timestamp is kept), false or null clears it, a timestamp sets it
   * An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`).
   */
  completedAt?: boolean | string | null
  /**
   * true sets it to now (an existing timestamp is kept), false or null clears it, a timestamp sets it
   * An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`).
   */
  confirmedAt?: boolean | string | null
  note?: string | null
  order?: number | null
  isAllDay?: boolean | null
  isOutward?: boolean | null
  externalId?: string | null
  assignmentId: number
  typeId: number
  groupId?: number | null
  assignedUsers?: number[] | null
  assignedGangs?: number[] | null
  /** `assignment`, `customer`, `company`, or a one-line postal address such as "Hauptstraße 1, 10115 Berlin, Deutschland" */
  addressStartFrom?: string | null
  /** `assignment`, `customer`, `company`, or a one-line postal address such as "Hauptstraße 1, 10115 Berlin, Deutschland" */
  addressDestination?: string | null
  /** `assignment`, `customer`, `company`, or a one-line postal address such as "Hauptstraße 1, 10115 Berlin, Deutschland" */
  addressReturnTo?: string | null
}

/** The body of `PATCH /v1/assignment-events/{id}`: fields left out keep their value. */
export interface AssignmentEventPatch {
  name?: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  startsAt?: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  endsAt?: string | null
  plannedEmployeeCount?: number | null
  workDays?: number | null
  workingTimePerDay?: number | null
  manPower?: number | null
  /**
   * true sets it to now (an existing timestamp is kept), false or null clears it, a timestamp sets it
   * An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`).
   */
  completedAt?: boolean | string | null
  /**
   * true sets it to now (an existing timestamp is kept), false or null clears it, a timestamp sets it
   * An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`).
   */
  confirmedAt?: boolean | string | null
  note?: string | null
  order?: number
  isAllDay?: boolean | null
  isOutward?: boolean | null
  externalId?: string | null
  groupId?: number | null
  assignedUsers?: number[] | null
  assignedGangs?: number[] | null
  /** `assignment`, `customer`, `company`, or a one-line postal address such as "Hauptstraße 1, 10115 Berlin, Deutschland" */
  addressStartFrom?: string | null
  /** `assignment`, `customer`, `company`, or a one-line postal address such as "Hauptstraße 1, 10115 Berlin, Deutschland" */
  addressDestination?: string | null
  /** `assignment`, `customer`, `company`, or a one-line postal address such as "Hauptstraße 1, 10115 Berlin, Deutschland" */
  addressReturnTo?: string | null
}

/** The list query of `GET /v1/assignment-events`: exactly its filters, operators and sort keys. */
export interface AssignmentEventQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<
    | 'id'
    | 'assignmentId'
    | 'typeId'
    | 'groupId'
    | 'name'
    | 'startsAt'
    | 'endsAt'
    | 'completedAt'
    | 'confirmedAt'
    | 'isAllDay'
    | 'isOutward'
    | 'externalId'
    | 'createdAt'
    | 'updatedAt'
  >
  id?: number | null | RangeFilter<number>
  assignmentId?: number | null | RangeFilter<number>
  typeId?: number | null | RangeFilter<number>
  groupId?: number | null | RangeFilter<number>
  name?: string | null | TextFilter
  startsAt?: string | null | RangeFilter<string>
  endsAt?: string | null | RangeFilter<string>
  completedAt?: string | null | RangeFilter<string>
  confirmedAt?: string | null | RangeFilter<string>
  isAllDay?: boolean | null | EqualityFilter<boolean>
  isOutward?: boolean | null | EqualityFilter<boolean>
  externalId?: string | null | TextFilter
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
  assignedUserId?: number | OneOfFilter<number>
}

// AssignmentEventGroup: /v1/assignment-event-groups
/** A Assignment Event Group as the API answers it. */
export interface AssignmentEventGroup {
  id: number
  note: string | null
  order: number
  typeId: number
  assignmentId: number
  externalId: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The body of `POST /v1/assignment-event-groups`. */
export interface AssignmentEventGroupData {
  note?: string | null
  order?: number | null
  typeId?: number | null
  assignmentId: number
  externalId?: string | null
}

/** The body of `PATCH /v1/assignment-event-groups/{id}`: fields left out keep their value. */
export interface AssignmentEventGroupPatch {
  note?: string | null
  order?: number
  typeId?: number
  externalId?: string | null
}

/** The list query of `GET /v1/assignment-event-groups`: exactly its filters, operators and sort keys. */
export interface AssignmentEventGroupQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'typeId' | 'assignmentId' | 'externalId' | 'createdAt' | 'updatedAt'>
  id?: number | null | RangeFilter<number>
  typeId?: number | null | RangeFilter<number>
  assignmentId?: number | null | RangeFilter<number>
  externalId?: string | null | TextFilter
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// TimeEntry: /v1/time-entries
/** A Time Entry as the API answers it. */
export interface TimeEntry {
  id: number
  typeId: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  startsAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  endsAt: string | null
  duration: number | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  pausedAt: string | null
  pauses: TimeEntryPause[]
  note: string | null
  userId: number
  assignmentId: number | null
  eventId: number | null
  eventTypeId: number | null
  startLatitude: number | null
  startLongitude: number | null
  startTrackingError: string | null
  endLatitude: number | null
  endLongitude: number | null
  endTrackingError: string | null
  externalId: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The body of `POST /v1/time-entries`. */
export interface TimeEntryData {
  typeId: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  startsAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  endsAt?: string | null
  pauses?: TimeEntryPauseInput[] | null
  note?: string | null
  userId: number
  assignmentId?: number | null
  eventId?: number | null
  eventTypeId?: number | null
  startLatitude?: number | null
  startLongitude?: number | null
  startTrackingError?: string | null
  endLatitude?: number | null
  endLongitude?: number | null
  endTrackingError?: string | null
  externalId?: string | null
}

/** The body of `PATCH /v1/time-entries/{id}`: fields left out keep their value. */
export interface TimeEntryPatch {
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  startsAt?: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  endsAt?: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  pausedAt?: string | null
  pauses?: TimeEntryPauseInput[] | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  resumedAt?: string | null
  note?: string | null
  endLatitude?: number | null
  endLongitude?: number | null
  endTrackingError?: string | null
  externalId?: string | null
}

/** The list query of `GET /v1/time-entries`: exactly its filters, operators and sort keys. */
export interface TimeEntryQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<
    | 'id'
    | 'typeId'
    | 'assignmentId'
    | 'eventId'
    | 'eventTypeId'
    | 'userId'
    | 'startsAt'
    | 'endsAt'
    | 'externalId'
    | 'createdAt'
    | 'updatedAt'
  >
  id?: number | null | RangeFilter<number>
  typeId?: number | null | RangeFilter<number>
  assignmentId?: number | null | RangeFilter<number>
  eventId?: number | null | RangeFilter<number>
  eventTypeId?: number | null | RangeFilter<number>
  userId?: number | null | RangeFilter<number>
  startsAt?: string | null | RangeFilter<string>
  endsAt?: string | null | RangeFilter<string>
  externalId?: string | null | TextFilter
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// UserAbsence: /v1/user-absences
/** A User Absence as the API answers it. */
export interface UserAbsence {
  id: number
  typeId: number
  userId: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  startsAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  endsAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  requestedAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  approvedAt: string | null
  noteForApproval: string | null
  needApprovalById: number | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  declinedAt: string | null
  declinedNote: string | null
  declinedById: number | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  compensationApprovedAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  compensationDeclinedAt: string | null
  compensatedById: number | null
  workDays: number
  status: 'idle' | 'draft' | 'approved' | 'declined'
  externalId: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The body of `POST /v1/user-absences`. */
export interface UserAbsenceData {
  typeId: number
  userId: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  startsAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  endsAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  requestedAt?: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  approvedAt?: string | null
  noteForApproval?: string | null
  needApprovalById?: number | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  declinedAt?: string | null
  declinedNote?: string | null
  declinedById?: number | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  compensationApprovedAt?: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  compensationDeclinedAt?: string | null
  compensatedById?: number | null
  externalId?: string | null
}

/** The body of `PATCH /v1/user-absences/{id}`: fields left out keep their value. */
export interface UserAbsencePatch {
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  startsAt?: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  endsAt?: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  requestedAt?: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  approvedAt?: string | null
  noteForApproval?: string | null
  needApprovalById?: number | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  declinedAt?: string | null
  declinedNote?: string | null
  declinedById?: number | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  compensationApprovedAt?: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  compensationDeclinedAt?: string | null
  compensatedById?: number | null
  externalId?: string | null
}

/** The list query of `GET /v1/user-absences`: exactly its filters, operators and sort keys. */
export interface UserAbsenceQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<
    | 'id'
    | 'userId'
    | 'typeId'
    | 'needApprovalById'
    | 'declinedById'
    | 'compensatedById'
    | 'startsAt'
    | 'endsAt'
    | 'requestedAt'
    | 'approvedAt'
    | 'declinedAt'
    | 'status'
    | 'externalId'
    | 'createdAt'
    | 'updatedAt'
  >
  id?: number | null | RangeFilter<number>
  userId?: number | null | RangeFilter<number>
  typeId?: number | null | RangeFilter<number>
  needApprovalById?: number | null | RangeFilter<number>
  declinedById?: number | null | RangeFilter<number>
  compensatedById?: number | null | RangeFilter<number>
  startsAt?: string | null | RangeFilter<string>
  endsAt?: string | null | RangeFilter<string>
  requestedAt?: string | null | RangeFilter<string>
  approvedAt?: string | null | RangeFilter<string>
  declinedAt?: string | null | RangeFilter<string>
  status?:
    'idle' | 'draft' | 'approved' | 'declined' | null | EqualityFilter<'idle' | 'draft' | 'approved' | 'declined'>
  externalId?: string | null | TextFilter
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// UserWorkingTime: /v1/user-working-times
/** A User working time as the API answers it. */
export interface UserWorkingTime {
  id: number
  userId: number
  /**
   * The first day (company timezone) this version applies to; it holds until the next version of the user. Not before 2000-01-01; one version per user and day.
   * A date, `YYYY-MM-DD`.
   */
  validFrom: string
  /** Target minutes per weekday (0..1440), all seven days. */
  targets: WeeklyTargets
  note: string | null
  externalId: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The body of `POST /v1/user-working-times`. */
export interface UserWorkingTimeData {
  userId: number
  /**
   * The first day (company timezone) this version applies to; it holds until the next version of the user. Not before 2000-01-01; one version per user and day.
   * A date, `YYYY-MM-DD`.
   */
  validFrom: string
  /** Target minutes per weekday (0..1440), all seven days. */
  targets: WeeklyTargets
  note?: string | null
  externalId?: string | null
}

/** The body of `PATCH /v1/user-working-times/{id}`: fields left out keep their value. */
export interface UserWorkingTimePatch {
  /**
   * The first day (company timezone) this version applies to; it holds until the next version of the user. Not before 2000-01-01; one version per user and day.
   * A date, `YYYY-MM-DD`.
   */
  validFrom?: string
  /** Target minutes per weekday (0..1440), all seven days. */
  targets?: WeeklyTargets
  note?: string | null
  externalId?: string | null
}

/** The list query of `GET /v1/user-working-times`: exactly its filters, operators and sort keys. */
export interface UserWorkingTimeQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'userId' | 'validFrom' | 'externalId' | 'createdAt' | 'updatedAt'>
  id?: number | null | RangeFilter<number>
  userId?: number | null | RangeFilter<number>
  validFrom?: string | null | RangeFilter<string>
  externalId?: string | null | TextFilter
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// TimeSheetDay: /v1/time-sheet-days
/** A Time Sheet Day as the API answers it. */
export interface TimeSheetDay {
  id: number
  userId: number
  /** A date, `YYYY-MM-DD`. */
  day: string
  status: 'draft' | 'submitted' | 'approved' | 'declined'
  note: string | null
  declinedNote: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  startsAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  endsAt: string | null
  breakTime: number | null
  duration: number | null
  expectedDuration: number | null
  breakTimeErrorType: 'missing' | 'tooShort' | null
  breakTimeErrorExpected: number | null
  breakTimeErrorValue: number | null
  breakTimeErrorDurationMin: number | null
  durationErrorExpected: number | null
  durationErrorValue: number | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  submittedAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  submittedFirstAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  approvedAt: string | null
  approvedById: number | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  declinedAt: string | null
  declinedById: number | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  manipulatedAt: string | null
  manipulatedById: number | null
  externalId: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The body of `POST /v1/time-sheet-days`. */
export interface TimeSheetDayData {
  userId: number
  /** A date, `YYYY-MM-DD`. */
  day: string
  status?: 'draft' | 'submitted' | 'approved' | 'declined'
  note?: string | null
  declinedNote?: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  startsAt?: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  endsAt?: string | null
  breakTime?: number | null
  duration?: number | null
  externalId?: string | null
}

/** The body of `PATCH /v1/time-sheet-days/{id}`: fields left out keep their value. */
export interface TimeSheetDayPatch {
  status?: 'draft' | 'submitted' | 'approved' | 'declined'
  note?: string | null
  declinedNote?: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  startsAt?: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  endsAt?: string | null
  breakTime?: number | null
  duration?: number | null
  externalId?: string | null
}

/** The list query of `GET /v1/time-sheet-days`: exactly its filters, operators and sort keys. */
export interface TimeSheetDayQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<
    'id' | 'userId' | 'day' | 'status' | 'submittedAt' | 'approvedAt' | 'externalId' | 'createdAt' | 'updatedAt'
  >
  id?: number | null | RangeFilter<number>
  userId?: number | null | RangeFilter<number>
  day?: string | null | RangeFilter<string>
  status?:
    | 'draft'
    | 'submitted'
    | 'approved'
    | 'declined'
    | null
    | EqualityFilter<'draft' | 'submitted' | 'approved' | 'declined'>
  submittedAt?: string | null | RangeFilter<string>
  approvedAt?: string | null | RangeFilter<string>
  externalId?: string | null | TextFilter
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// TimeSheetWeek: /v1/time-sheet-weeks
/** A Time Sheet Week as the API answers it. */
export interface TimeSheetWeek {
  id: number
  userId: number
  /** A date, `YYYY-MM-DD`. */
  weekStart: string
  status: 'draft' | 'submitted' | 'approved' | 'declined'
  submittedCount: number
  approvedCount: number
  declinedCount: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  submittedAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  approvedAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  declinedAt: string | null
  sumActual: number
  sumTarget: number
  hasMultipleDayTimeEntryCount: number
  recomputableCount: number
  hasOpenTimeEntryCount: number
  /** A date, `YYYY-MM-DD`. */
  openTimeEntryEarliestDay: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  computedAt: string | null
  externalId: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The body of `PATCH /v1/time-sheet-weeks/{id}`: fields left out keep their value. */
export interface TimeSheetWeekPatch {
  status?: 'draft' | 'submitted' | 'approved' | 'declined'
  externalId?: string | null
}

/** The list query of `GET /v1/time-sheet-weeks`: exactly its filters, operators and sort keys. */
export interface TimeSheetWeekQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'userId' | 'weekStart' | 'status' | 'externalId' | 'createdAt' | 'updatedAt'>
  id?: number | null | RangeFilter<number>
  userId?: number | null | RangeFilter<number>
  weekStart?: string | null | RangeFilter<string>
  status?:
    | 'draft'
    | 'submitted'
    | 'approved'
    | 'declined'
    | null
    | EqualityFilter<'draft' | 'submitted' | 'approved' | 'declined'>
  externalId?: string | null | TextFilter
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// TimeSheetMonth: /v1/time-sheet-months
/** A Time Sheet Month as the API answers it. */
export interface TimeSheetMonth {
  id: number
  userId: number
  /** A date, `YYYY-MM-DD`. */
  month: string
  status: 'draft' | 'submitted' | 'approved' | 'declined'
  note: string | null
  declinedNote: string | null
  submittedCount: number
  approvedCount: number
  declinedCount: number
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  submittedAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  submittedFirstAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  approvedAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  declinedAt: string | null
  sumActual: number
  sumTarget: number
  sumActualComputed: number
  sumTargetComputed: number
  carryIn: number
  carryInComputed: number
  carryOut: number
  carryOutComputed: number
  carryOutForfeited: number
  carryInCorrectionType: 'manual' | 'capped' | null
  carryOutCorrectionType: 'manual' | 'capped' | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  lockedAt: string | null
  sumActualLocked: number | null
  sumTargetLocked: number | null
  carryInLocked: number | null
  carryOutLocked: number | null
  currentDifference: number
  hasMultipleDayTimeEntryCount: number
  recomputableCount: number
  hasOpenTimeEntryCount: number
  /** A date, `YYYY-MM-DD`. */
  openTimeEntryEarliestDay: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  computedAt: string | null
  externalId: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The body of `PATCH /v1/time-sheet-months/{id}`: fields left out keep their value. */
export interface TimeSheetMonthPatch {
  status?: 'draft' | 'submitted' | 'approved' | 'declined'
  note?: string | null
  carryInManual?: number | null
  carryOutManual?: number | null
  externalId?: string | null
}

/** The list query of `GET /v1/time-sheet-months`: exactly its filters, operators and sort keys. */
export interface TimeSheetMonthQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'userId' | 'month' | 'status' | 'externalId' | 'createdAt' | 'updatedAt'>
  id?: number | null | RangeFilter<number>
  userId?: number | null | RangeFilter<number>
  month?: string | null | RangeFilter<string>
  status?:
    | 'draft'
    | 'submitted'
    | 'approved'
    | 'declined'
    | null
    | EqualityFilter<'draft' | 'submitted' | 'approved' | 'declined'>
  externalId?: string | null | TextFilter
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// WebhookSubscription: /v1/webhook-subscriptions
/** A Webhook Subscription as the API answers it. */
export interface WebhookSubscription {
  id: number
  /** Where events are POSTed: an https:// URL whose host resolves only to public addresses (private, loopback and link-local addresses are refused). */
  url: string
  /** Event types to receive, `<collection>.<created|patched|removed>` or `company.recomputed`; `*` stands for either part (`time-entries.*`, `*.removed`) or, alone, for every type. Empty (the default): every type. */
  types: string[]
  description: string | null
  /**
   * Set: the subscription receives nothing and its queued deliveries are given up (also set by the server after 3 days of failed deliveries). Back to null: it receives the events from then on; `replay` sends the ones before.
   * An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`).
   */
  deactivatedAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The body of `POST /v1/webhook-subscriptions`. */
export interface WebhookSubscriptionData {
  /** Where events are POSTed: an https:// URL whose host resolves only to public addresses (private, loopback and link-local addresses are refused). */
  url: string
  /** Event types to receive, `<collection>.<created|patched|removed>` or `company.recomputed`; `*` stands for either part (`time-entries.*`, `*.removed`) or, alone, for every type. Empty (the default): every type. */
  types?: string[]
  description?: string | null
  /**
   * Set: the subscription receives nothing and its queued deliveries are given up (also set by the server after 3 days of failed deliveries). Back to null: it receives the events from then on; `replay` sends the ones before.
   * An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`).
   */
  deactivatedAt?: string | null
}

/** The answer of `POST /v1/webhook-subscriptions`: the record and what only the create reveals. */
export interface WebhookSubscriptionCreated {
  id: number
  /** Where events are POSTed: an https:// URL whose host resolves only to public addresses (private, loopback and link-local addresses are refused). */
  url: string
  /** Event types to receive, `<collection>.<created|patched|removed>` or `company.recomputed`; `*` stands for either part (`time-entries.*`, `*.removed`) or, alone, for every type. Empty (the default): every type. */
  types: string[]
  description: string | null
  /**
   * Set: the subscription receives nothing and its queued deliveries are given up (also set by the server after 3 days of failed deliveries). Back to null: it receives the events from then on; `replay` sends the ones before.
   * An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`).
   */
  deactivatedAt: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
  /** The signing secret (Standard Webhooks): verify each delivery with it. Shown in this answer only; store it now. */
  secret: string
}

/** The body of `PATCH /v1/webhook-subscriptions/{id}`: fields left out keep their value. */
export interface WebhookSubscriptionPatch {
  /** Where events are POSTed: an https:// URL whose host resolves only to public addresses (private, loopback and link-local addresses are refused). */
  url?: string
  /** Event types to receive, `<collection>.<created|patched|removed>` or `company.recomputed`; `*` stands for either part (`time-entries.*`, `*.removed`) or, alone, for every type. Empty (the default): every type. */
  types?: string[]
  description?: string | null
  /**
   * Set: the subscription receives nothing and its queued deliveries are given up (also set by the server after 3 days of failed deliveries). Back to null: it receives the events from then on; `replay` sends the ones before.
   * An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`).
   */
  deactivatedAt?: string | null
}

/** The list query of `GET /v1/webhook-subscriptions`: exactly its filters, operators and sort keys. */
export interface WebhookSubscriptionQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'url' | 'description' | 'deactivatedAt' | 'createdAt' | 'updatedAt'>
  id?: number | null | RangeFilter<number>
  url?: string | null | TextFilter
  description?: string | null | TextFilter
  deactivatedAt?: string | null | RangeFilter<string>
  createdAt?: string | null | RangeFilter<string>
  updatedAt?: string | null | RangeFilter<string>
}

// Upload: /v1/{assignments|assignment-events}/{parentId}/uploads
/** A Upload as the API answers it. */
export interface Upload {
  id: number
  mimeType: string
  fileSize: number
  fileName: string
  description: string | null
  downloadUrl: string
  categoryId: number | null
  assignmentId: number | null
  assignmentEventId: number | null
  additionalProperties: string | null
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  createdAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  updatedAt: string
}

/** The text fields of `POST /v1/{assignments|assignment-events}/{parentId}/uploads` (multipart), besides the file (UploadFile). */
export interface UploadData {
  description?: string | null
  categoryId?: number | null
  additionalProperties?: string | null
}

/** The body of `PATCH /v1/{assignments|assignment-events}/{parentId}/uploads/{id}`: fields left out keep their value. */
export interface UploadPatch {
  fileName?: string
  description?: string | null
  categoryId?: number | null
  additionalProperties?: string | null
}

/** The list query of `GET /v1/{assignments|assignment-events}/{parentId}/uploads`: exactly its filters, operators and sort keys. */
export interface UploadQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'categoryId'>
  id?: number | null | RangeFilter<number>
  categoryId?: number | null | RangeFilter<number>
}

// WebhookDelivery: /v1/webhook-subscriptions/{webhookSubscriptionId}/deliveries
/** A Webhook Delivery as the API answers it. */
export interface WebhookDelivery {
  id: number
  /** The event delivered: its id in the log, also the `webhook-id` header of every attempt. */
  eventId: string
  /** The event type. */
  type: string
  /** Attempts made so far. */
  attempts: number
  /** HTTP status of the last attempt; null: no answer. */
  lastStatus: number | null
  /** Why the last attempt failed, or why the delivery was given up. */
  lastError: string | null
  /**
   * When it goes out next; null once delivered or given up.
   * An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`).
   */
  nextAttemptAt: string | null
  /**
   * When the receiver answered 2xx.
   * An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`).
   */
  deliveredAt: string | null
  /**
   * When it was queued.
   * An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`).
   */
  createdAt: string
}

/** The list query of `GET /v1/webhook-subscriptions/{webhookSubscriptionId}/deliveries`: exactly its filters, operators and sort keys. */
export interface WebhookDeliveryQuery {
  /** The page, from 0 (default 0). */
  page?: number
  /** Items a page, 1..20 (default 10). */
  size?: number
  /** Sort by filterable fields, in the order given (ties broken by id). */
  $sort?: SortOf<'id' | 'type' | 'attempts' | 'lastStatus' | 'nextAttemptAt' | 'deliveredAt' | 'createdAt'>
  id?: number | null | RangeFilter<number>
  type?: string | null | TextFilter
  attempts?: number | null | RangeFilter<number>
  lastStatus?: number | null | RangeFilter<number>
  nextAttemptAt?: string | null | RangeFilter<string>
  deliveredAt?: string | null | RangeFilter<string>
  createdAt?: string | null | RangeFilter<string>
}

/** The body of `POST /v1/webhook-subscriptions/{webhookSubscriptionId}/replay`. */
export interface WebhookReplay {
  /** An event id of the company's log: the events after it are sent again ("0": every retained event). The `webhook-id` of a delivery is its event id. */
  after: string | number
}

/** The answer of `POST /v1/webhook-subscriptions/{webhookSubscriptionId}/replay`. */
export interface WebhookReplayQueued {
  /** Deliveries queued. */
  queued: number
}

// The change feed

/** An event of `GET /v1/changes` (the change feed). */
export interface ChangeEvent {
  /** Increases within the company in the order its events become readable: the feed, sockets and webhooks never hand out a lower id after a higher one; compare as numbers. */
  id: string
  /** `<collection>.<created|patched|removed>` (uploads: `uploads.*`), or `company.recomputed` (many users' time sheets recomputed at once). */
  type: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  occurredAt: string
  /** The record as the REST API returned it when the event was logged; for `removed` as it was before the request. For `company.recomputed`: `reason`, `fromDay` (or null), `userIds`, `months`. */
  data: Record<string, unknown>
  /** Who made the change. */
  actor:
    | {
        apiKeyId: number
      }
    | {
        /** An admin on the settings page. */
        userId: number
      }
    | {
        /** Scheduled work of the server. */
        system: true
      }
  /** The request's `X-Request-Id`, the same for every event of that request. */
  requestId: string
}

/** The query of `GET /v1/changes` (the change feed). */
export interface ChangesQuery {
  /** An event id (or "0"): return the events after it. Without it: from the oldest retained event. Not an id of this company → 400; past retention → 410. */
  after?: string
  /** Events per page. */
  size?: number
  /** Only these event types, comma-separated; `*` is a wildcard (`time-entries.*`, `*.removed`). A type that matches none → 400. */
  types?: string
}

// By-user look-ups

/** The query of `GET /v1/time-sheet-days/by-user`: the user's row of that period, created on demand. */
export interface TimeSheetDayByUserQuery {
  /** The user. */
  userId: number
  /**
   * YYYY-MM-DD.
   * A date, `YYYY-MM-DD`.
   */
  day: string
}

/** The query of `GET /v1/time-sheet-weeks/by-user`: the user's row of that period, created on demand. */
export interface TimeSheetWeekByUserQuery {
  /** The user. */
  userId: number
  /**
   * YYYY-MM-DD, a Monday (the first day of an ISO week).
   * A date, `YYYY-MM-DD`.
   */
  weekStart: string
}

/** The query of `GET /v1/time-sheet-months/by-user`: the user's row of that period, created on demand. */
export interface TimeSheetMonthByUserQuery {
  /** The user. */
  userId: number
  /**
   * YYYY-MM-DD, the first day of a month.
   * A date, `YYYY-MM-DD`.
   */
  month: string
}

// Parts shared by several types

export interface Telephone {
  label?: string
  isDefault?: boolean
  telephoneNumber: string
}

export interface CustomerEmail {
  label?: string
  isDefault?: boolean
  emailAddress: string
}

export interface CustomerUrl {
  label?: string
  url: string
}

export interface Address {
  supplement: string | null
  street: string | null
  clarification: string | null
  zip: string | null
  city: string | null
  state: string | null
  country: string | null
  externalId: string | null
  latitude: number | null
  longitude: number | null
}

export interface AddressInput {
  supplement?: string | null
  street?: string | null
  clarification?: string | null
  zip?: string | null
  city?: string | null
  state?: string | null
  country?: string | null
  externalId?: string | null
}

export interface EventAddress {
  supplement: string | null
  street: string | null
  clarification: string | null
  zip: string | null
  city: string | null
  state: string | null
  country: string | null
  externalId: string | null
  latitude: number | null
  longitude: number | null
  link: string | null
}

export interface TimeEntryPause {
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  startsAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  endsAt: string | null
}

export interface TimeEntryPauseInput {
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  startsAt: string
  /** An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`). */
  endsAt?: string | null
}

/** Target minutes per weekday (0..1440), all seven days. */
export interface WeeklyTargets {
  mon: number
  tue: number
  wed: number
  thu: number
  fri: number
  sat: number
  sun: number
}

/** Every service of the API by path: its record, create, patch and query types and its methods. */
export interface ServiceDefinitions {
  'v1/customers': Collection<
    Customer,
    CustomerData,
    CustomerPatch,
    CustomerQuery,
    'find' | 'get' | 'create' | 'patch' | 'remove'
  >
  'v1/projects': Collection<
    Project,
    ProjectData,
    ProjectPatch,
    ProjectQuery,
    'find' | 'get' | 'create' | 'patch' | 'remove'
  >
  'v1/users': Collection<User, UserData, UserPatch, UserQuery, 'find' | 'get' | 'create' | 'patch'>
  'v1/gangs': Collection<Gang, GangData, GangPatch, GangQuery, 'find' | 'get' | 'create' | 'patch' | 'remove'>
  'v1/roles': Collection<Role, never, never, RoleQuery, 'find' | 'get'>
  'v1/assignment-types': Collection<AssignmentType, never, never, AssignmentTypeQuery, 'find' | 'get'>
  'v1/assignment-status-types': Collection<
    AssignmentStatusType,
    never,
    never,
    AssignmentStatusTypeQuery,
    'find' | 'get'
  >
  'v1/assignment-event-types': Collection<AssignmentEventType, never, never, AssignmentEventTypeQuery, 'find' | 'get'>
  'v1/assignment-event-group-types': Collection<
    AssignmentEventGroupType,
    never,
    never,
    AssignmentEventGroupTypeQuery,
    'find' | 'get'
  >
  'v1/time-entry-types': Collection<
    TimeEntryType,
    TimeEntryTypeData,
    TimeEntryTypePatch,
    TimeEntryTypeQuery,
    'find' | 'get' | 'create' | 'patch'
  >
  'v1/user-absence-types': Collection<
    UserAbsenceType,
    UserAbsenceTypeData,
    UserAbsenceTypePatch,
    UserAbsenceTypeQuery,
    'find' | 'get' | 'create' | 'patch'
  >
  'v1/upload-categories': Collection<
    UploadCategory,
    UploadCategoryData,
    UploadCategoryPatch,
    UploadCategoryQuery,
    'find' | 'get' | 'create' | 'patch'
  >
  'v1/assignments': Collection<
    Assignment,
    AssignmentData,
    AssignmentPatch,
    AssignmentQuery,
    'find' | 'get' | 'create' | 'patch' | 'remove'
  >
  'v1/assignment-events': Collection<
    AssignmentEvent,
    AssignmentEventData,
    AssignmentEventPatch,
    AssignmentEventQuery,
    'find' | 'get' | 'create' | 'patch' | 'remove'
  >
  'v1/assignment-event-groups': Collection<
    AssignmentEventGroup,
    AssignmentEventGroupData,
    AssignmentEventGroupPatch,
    AssignmentEventGroupQuery,
    'find' | 'get' | 'create' | 'patch' | 'remove'
  >
  'v1/time-entries': Collection<
    TimeEntry,
    TimeEntryData,
    TimeEntryPatch,
    TimeEntryQuery,
    'find' | 'get' | 'create' | 'patch' | 'remove'
  >
  'v1/user-absences': Collection<
    UserAbsence,
    UserAbsenceData,
    UserAbsencePatch,
    UserAbsenceQuery,
    'find' | 'get' | 'create' | 'patch' | 'remove'
  >
  'v1/user-working-times': Collection<
    UserWorkingTime,
    UserWorkingTimeData,
    UserWorkingTimePatch,
    UserWorkingTimeQuery,
    'find' | 'get' | 'create' | 'patch' | 'remove'
  >
  'v1/time-sheet-days': Collection<
    TimeSheetDay,
    TimeSheetDayData,
    TimeSheetDayPatch,
    TimeSheetDayQuery,
    'find' | 'get' | 'create' | 'patch'
  >
  'v1/time-sheet-weeks': Collection<
    TimeSheetWeek,
    never,
    TimeSheetWeekPatch,
    TimeSheetWeekQuery,
    'find' | 'get' | 'patch'
  >
  'v1/time-sheet-months': Collection<
    TimeSheetMonth,
    never,
    TimeSheetMonthPatch,
    TimeSheetMonthQuery,
    'find' | 'get' | 'patch'
  >
  'v1/webhook-subscriptions': Collection<
    WebhookSubscription,
    WebhookSubscriptionData,
    WebhookSubscriptionPatch,
    WebhookSubscriptionQuery,
    'find' | 'get' | 'create' | 'patch' | 'remove',
    never,
    WebhookSubscriptionCreated
  >
  'v1/changes': Feed<ChangeEvent, ChangesQuery>
  'v1/time-sheet-days/by-user': Lookup<TimeSheetDay, TimeSheetDayByUserQuery>
  'v1/time-sheet-weeks/by-user': Lookup<TimeSheetWeek, TimeSheetWeekByUserQuery>
  'v1/time-sheet-months/by-user': Lookup<TimeSheetMonth, TimeSheetMonthByUserQuery>
  'v1/assignments/:assignmentId/uploads': Collection<
    Upload,
    UploadData & UploadFile,
    UploadPatch,
    UploadQuery,
    'find' | 'get' | 'create' | 'patch' | 'remove',
    { assignmentId: number }
  >
  'v1/assignment-events/:assignmentEventId/uploads': Collection<
    Upload,
    UploadData & UploadFile,
    UploadPatch,
    UploadQuery,
    'find' | 'get' | 'create' | 'patch' | 'remove',
    { assignmentEventId: number }
  >
  'v1/webhook-subscriptions/:webhookSubscriptionId/deliveries': Collection<
    WebhookDelivery,
    never,
    never,
    WebhookDeliveryQuery,
    'find',
    { webhookSubscriptionId: number }
  >
  'v1/webhook-subscriptions/:webhookSubscriptionId/replay': Collection<
    WebhookReplayQueued,
    WebhookReplay,
    never,
    never,
    'create',
    { webhookSubscriptionId: number }
  >
}

/** Every service of the API with the methods it offers (checked against the server by the tests). */
export const SERVICE_METHODS = {
  'v1/customers': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/projects': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/users': ['find', 'get', 'create', 'patch'],
  'v1/gangs': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/roles': ['find', 'get'],
  'v1/assignment-types': ['find', 'get'],
  'v1/assignment-status-types': ['find', 'get'],
  'v1/assignment-event-types': ['find', 'get'],
  'v1/assignment-event-group-types': ['find', 'get'],
  'v1/time-entry-types': ['find', 'get', 'create', 'patch'],
  'v1/user-absence-types': ['find', 'get', 'create', 'patch'],
  'v1/upload-categories': ['find', 'get', 'create', 'patch'],
  'v1/assignments': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/assignment-events': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/assignment-event-groups': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/time-entries': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/user-absences': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/user-working-times': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/time-sheet-days': ['find', 'get', 'create', 'patch'],
  'v1/time-sheet-weeks': ['find', 'get', 'patch'],
  'v1/time-sheet-months': ['find', 'get', 'patch'],
  'v1/webhook-subscriptions': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/time-sheet-days/by-user': ['find'],
  'v1/time-sheet-weeks/by-user': ['find'],
  'v1/time-sheet-months/by-user': ['find'],
  'v1/changes': ['find'],
  'v1/assignments/:assignmentId/uploads': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/assignment-events/:assignmentEventId/uploads': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/webhook-subscriptions/:webhookSubscriptionId/deliveries': ['find'],
  'v1/webhook-subscriptions/:webhookSubscriptionId/replay': ['create']
} as const
