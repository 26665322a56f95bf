/**
 * How @crewclock/client is typed, as code that uses it: right usages compile, and each wrong
 * usage carries `@ts-expect-error`. test/api/client-types.test.ts compiles this file with
 * `--strict`, and again without the markers to see each marked line fail; the package test
 * compiles it against the packed package. Nothing here runs.
 */
import type { ChangeEvent, Customer, CrewclockClient, TimeSheetDay, Upload } from '../../client/src'

export async function rightUsages(client: CrewclockClient<'socket'>, rest: CrewclockClient<'rest'>) {
  const customer = await client.service('v1/customers').create({ companyName: 'Elektro Müller GmbH' })
  const id: number = customer.id
  const companyName: string | null = customer.companyName
  await client.service('v1/customers').create({ surname: 'Müller', billingAddress: { city: 'Berlin' } })
  const assignment = await client.service('v1/assignments').create({ name: 'Neubau', customerId: id })
  // Write types follow the write schema: `completedAt: true`, address keywords, `password` on create.
  const event = await client.service('v1/assignment-events').create({
    assignmentId: assignment.id,
    typeId: 1,
    completedAt: true,
    addressStartFrom: 'customer',
    addressDestination: 'Hauptstraße 1, 10115 Berlin'
  })
  const assigned: number[] = event.assignedUsers
  const name: string = event.name
  await client
    .service('v1/assignment-events')
    .patch(event.id, { completedAt: '2026-11-22T09:30:00Z', confirmedAt: false })
  await client.service('v1/users').create({ fullName: 'Tina', email: 'tina@example.test', password: 'long enough' })
  // Queries: filters with their operators, `null`, `$sort`, `page` and `size`.
  const page = await client.service('v1/time-entries').find({
    query: {
      endsAt: null,
      userId: { $in: [1, 2] },
      startsAt: { $gte: '2026-11-01T00:00:00Z', $lt: '2026-12-01T00:00:00Z' },
      $sort: { startsAt: -1 },
      page: 0,
      size: 20
    }
  })
  const firstId: number = page.items[0].id
  const total: number = page.total
  await client.service('v1/customers').find({ query: { companyName: { $like: '%müller%' }, number: { $ne: null } } })
  await client.service('v1/assignment-events').find({ query: { assignedUserId: { $in: [1] }, isAllDay: false } })
  await client.service('v1/users').find({ query: { roleType: { $in: ['admin', 'office'] }, deactivatedAt: null } })
  // `remove` answers the record over a socket, nothing (204) over REST; `get` never null.
  const removed: Customer = await client.service('v1/customers').remove(id)
  const gone: null = await rest.service('v1/customers').remove(id)
  const got: string = (await rest.service('v1/projects').get(1)).number
  const day: TimeSheetDay = await client
    .service('v1/time-sheet-days/by-user')
    .find({ query: { userId: 1, day: '2026-11-02' } })
  // Nested uploads: a service with route parameters whose events arrive; created through the client.
  const uploads = client.service('v1/assignments/:assignmentId/uploads')
  uploads.on('created', (upload: Upload) => upload.assignmentId)
  await uploads.find({ route: { assignmentId: assignment.id }, query: { categoryId: 3 } })
  await uploads.create({ file: new Blob(['%PDF']), fileName: 'plan.pdf' }, { route: { assignmentId: assignment.id } })
  await client
    .uploads('assignment-events', event.id)
    .create({ file: new Blob(['x']), description: 'Photo', categoryId: 1 })
  await client.service('v1/projects').get(1, { timeout: 30_000 })
  client.on('reconnected', () => undefined)
  // The change feed: a page of events and the cursor of the next call; a subscription's create reveals its secret.
  const feed = await rest.service('v1/changes').find({ query: { after: '0', size: 100, types: 'time-entries.*' } })
  const changes: ChangeEvent[] = feed.items
  const next: string = feed.next
  const secret: string = (await client.service('v1/webhook-subscriptions').create({ url: 'https://hooks.example' }))
    .secret
  return [companyName, assigned, name, firstId, total, removed, gone, got, day, changes, next, secret]
}

export async function wrongUsages(client: CrewclockClient<'socket'>, rest: CrewclockClient<'rest'>) {
  // @ts-expect-error an unknown filter
  await client.service('v1/customers').find({ query: { nope: 1 } })
  // @ts-expect-error a wrong filter value type: userId is a number
  await client.service('v1/time-entries').find({ query: { userId: 'seven' } })
  // @ts-expect-error a wrong operator value type
  await client.service('v1/time-entries').find({ query: { startsAt: { $gte: 5 } } })
  // @ts-expect-error `$like` is for text fields only
  await client.service('v1/time-entries').find({ query: { userId: { $like: '1%' } } })
  // @ts-expect-error no `null` inside `$in`
  await client.service('v1/time-entries').find({ query: { endsAt: { $in: [null] } } })
  // @ts-expect-error a required create field is missing (customerId)
  await client.service('v1/assignments').create({ name: 'Neubau' })
  // @ts-expect-error a customer needs companyName or surname
  await client.service('v1/customers').create({ number: 'K-1' })
  // @ts-expect-error a create-only field in a patch
  await client.service('v1/assignment-events').patch(1, { assignmentId: 2 })
  // @ts-expect-error `$sort` on a field that is not filterable
  await client.service('v1/assignment-events').find({ query: { $sort: { note: 1 } } })
  // @ts-expect-error an output-only field in a create
  await client.service('v1/users').create({ fullName: 'Tina', email: 'tina@example.test', roleType: 'admin' })
  // @ts-expect-error a value outside an enum filter
  await client.service('v1/users').find({ query: { roleType: 'boss' } })
  // @ts-expect-error users offer no remove
  await client.service('v1/users').remove(1)
  // @ts-expect-error roles are read-only
  await client.service('v1/roles').create({})
  // @ts-expect-error nested uploads need their route parameter
  await client.service('v1/assignments/:assignmentId/uploads').find()
  // @ts-expect-error an upload's create needs the file
  await client.uploads('assignments', 1).create({ description: 'no file' })
  // @ts-expect-error a password is never answered
  void (await client.service('v1/users').get(1)).password
  // @ts-expect-error a REST client has no events
  rest.service('v1/customers').on('created', () => undefined)
  // @ts-expect-error the page size is a number
  await client.service('v1/projects').find({ query: { size: '20' } })
  // @ts-expect-error an unknown service
  client.service('v1/nothing')
  // @ts-expect-error the feed's cursor is an event id as text
  await client.service('v1/changes').find({ query: { after: 5 } })
  // @ts-expect-error the feed is read only
  await client.service('v1/changes').create({})
  // @ts-expect-error only the create reveals the signing secret
  void (await client.service('v1/webhook-subscriptions').get(1)).secret
  // @ts-expect-error a result field is non-null where the API never answers null, and typed
  const wrong: string = (await client.service('v1/assignment-events').get(1)).assignedUsers
  return wrong
}
