import { NotFound } from '@feathersjs/errors'
import { Type, TObject } from '@feathersjs/typebox'
import type { Application, Params } from '../declarations'
import type { Resource, ValidationErrors } from '../resources/define-resource'
import type { ResourceService } from '../resources/service'
import type { OpenApiTools, PathItems } from '../resources/openapi'
import { DateString, Id } from '../resources/types'
import { badRequest, collectErrors, compile, unstorableTextErrors, queryAjv } from '../resources/validation'
import { API_PREFIX, ResourceRoute } from '../resources/register'
import type { Day } from '../timesheets/calendar'
import { EARLIEST_DAY, horizonOf } from '../timesheets/periods'
import { openSheets } from '../timesheets/recompute'
import type { WantedSheets } from '../timesheets/sheet-rows'
import { logSheetEvents, sheetEvents } from '../timesheets/events'
import { loggedTransaction } from '../events/journal'

/**
 * The by-user look-ups (CONTRACT §7.7): `GET /v1/<collection>/by-user?userId=..&<period>=..`
 * returns the user's row of that period, created on demand (with the parent week and month of a
 * day, the months of a week, and a gap-free chain of months). Shared by the three time-sheet
 * services, which mount it with registerResource(): `routes: [byUserRoute(spec)]`.
 */
export interface ByUserSpec {
  resource: Resource
  /** The period parameter, also the column. */
  param: 'day' | 'weekStart' | 'month'
  /** A rule the period must follow (a Monday, the first of a month). */
  rule?: { test: (value: Day) => boolean; message: string }
  /** The rows to create for a missing period. */
  wanted: (value: Day) => WantedSheets
}

export const byUserPath = (resource: Resource) => `${API_PREFIX}/${resource.path}/by-user`

export function byUserQuerySchema(spec: ByUserSpec): TObject {
  return Type.Object(
    {
      userId: Id({ description: 'The user.' }),
      [spec.param]: DateString({ description: spec.rule ? `YYYY-MM-DD, ${spec.rule.message}.` : 'YYYY-MM-DD.' })
    },
    { $id: `${spec.resource.entity}ByUserQuery`, additionalProperties: false }
  )
}

/**
 * 400 for a period before the earliest time sheet day or more than 3 calendar months after
 * today (company timezone), or one that breaks the period's rule. Shared with the day's create.
 */
export function periodErrors(
  param: string,
  value: Day,
  zone: string,
  rule?: ByUserSpec['rule']
): ValidationErrors | undefined {
  if (rule && !rule.test(value)) return { [param]: `must be ${rule.message}` }
  if (value < EARLIEST_DAY) return { [param]: `must not be before ${EARLIEST_DAY}` }
  const horizon = horizonOf(zone)
  if (value > horizon) return { [param]: `must not be more than 3 calendar months after today (at most ${horizon})` }
  return undefined
}

function parseQuery(spec: ByUserSpec, schema: TObject, raw: unknown): { userId: number; value: Day } {
  const query = { ...((raw ?? {}) as Record<string, unknown>) }
  // `?userId=` would be coerced to 0, `userId=0x10` to 16: loose values are the client's mistake.
  const loose = Object.fromEntries(
    Object.keys(query).flatMap((key) =>
      query[key] === ''
        ? [[key, 'must not be empty']]
        : key === 'userId' && typeof query[key] === 'string' && !/^\d+$/.test(query[key] as string)
          ? [[key, 'must be a decimal integer']]
          : []
    )
  )
  if (Object.keys(loose).length > 0) throw badRequest('Invalid query', loose)
  const validate = compile(queryAjv, schema)
  const valid = validate(query)
  const nul = unstorableTextErrors(query)
  if (!valid || Object.keys(nul).length > 0) {
    const errors = collectErrors(
      valid ? [] : validate.errors,
      () => `is not a parameter of ${spec.resource.path}/by-user (parameters: userId, ${spec.param})`
    )
    throw badRequest('Invalid query', { ...nul, ...errors })
  }
  return { userId: query.userId as number, value: query[spec.param] as Day }
}

export class ByUserService {
  app?: Application
  readonly querySchema: TObject

  constructor(readonly spec: ByUserSpec) {
    this.querySchema = byUserQuerySchema(spec)
  }

  async setup(app: Application) {
    this.app = app
  }

  async find(params: Params = {}) {
    const app = this.app as Application
    const { resource, param } = this.spec
    const { userId, value } = parseQuery(this.spec, this.querySchema, params.query)
    const company = params.company!
    const errors = periodErrors(param, value, company.timezone, this.spec.rule)
    if (errors) throw badRequest('Invalid query', errors)
    const knex = app.get('knex')
    if (!(await knex('users').where({ id: userId, companyId: company.id }).first('id')))
      throw new NotFound(`No User with id ${userId}`)
    const rows = app.service(`${API_PREFIX}/${resource.path}`) as unknown as ResourceService
    const where = { companyId: company.id, userId, [param]: value }
    const existing = await knex(resource.table).where(where).first('id')
    if (existing) return rows.read(existing.id, params)
    // Rows created by a look-up are logged as `created` (CONTRACT §13.6), in the look-up's transaction.
    return loggedTransaction(app, knex, params, async (tx, trx) => {
      const created = await openSheets(trx, company.id, userId, this.spec.wanted(value))
      logSheetEvents(tx, sheetEvents(created))
      const row = await trx(resource.table).where(where).first('id')
      return rows.read(row.id, tx)
    })
  }
}

export const BY_USER_METHODS = ['find'] as const

/** `GET /v1/<collection>/by-user` next to the collection. */
export function byUserRoute(spec: ByUserSpec): ResourceRoute {
  // A look-up may create the period's rows, but it is a read of the sheet collection (CONTRACT §10.1).
  return { name: 'by-user', service: new ByUserService(spec), methods: [...BY_USER_METHODS], access: 'read' }
}

/** The by-user look-up in the collection's API description. */
export function byUserOperations(tools: OpenApiTools, spec: ByUserSpec): PathItems {
  const { resource, param } = spec
  const name = resource.displayName()
  return {
    [`/${byUserPath(resource)}`]: {
      get: {
        tags: [tools.tag(resource)],
        summary: `Get the ${name} of a user by ${param}`,
        description:
          `Returns the ${name} of the user for that ${param}, creating it (with its parent rows) when it does not exist yet. ` +
          `Needs the scope \`${resource.path}:read\`. 400 for a ${param} more than 3 calendar months after today (company timezone)${spec.rule ? ` or not ${spec.rule.message}` : ''}; 404 for an unknown user.`,
        operationId: `get${resource.entity}ByUser`,
        parameters: tools.queryParameters(byUserQuerySchema(spec)),
        responses: { '200': tools.json(tools.resourceRef(resource)), ...tools.errors(401, 403, 400, 404) }
      }
    }
  }
}
