import { authenticate } from '@feathersjs/authentication'
import { NotAuthenticated } from '@feathersjs/errors'
import type { Static, TSchema } from '@feathersjs/typebox'
import type { HookContext, NextFunction } from '../declarations'
import { badRequest, bodyAjv, collectErrors, compile } from '../resources/validation'

/**
 * The settings endpoints answer only to the token of an admin's email + password login: an API
 * key (or the JWT a socket mints for one) must not be able to mint or copy other keys.
 */
export const requireSettingsLogin = async (context: HookContext, next: NextFunction) => {
  if (context.params.provider) {
    await authenticate('jwt')(context)
    if (!context.params.settingsLogin)
      throw new NotAuthenticated('Sign in on the settings page with email and password')
  }
  if (!context.params.company || !context.params.user) throw new NotAuthenticated('No company to act for')
  await next()
}

/**
 * Settings results carry plain API keys: they must never reach the company channel or the
 * sync bus between instances, so the standard events are dropped.
 */
export const withoutEvents = async (context: HookContext, next: NextFunction) => {
  await next()
  context.event = null
}

/** The settings endpoints take no query parameters. */
export const noQuery = async (context: HookContext) => {
  const keys = Object.keys(context.params.query ?? {})
  if (keys.length)
    throw badRequest('Invalid query', Object.fromEntries(keys.map((k) => [k, `is not a parameter of ${context.path}`])))
}

/** Validates a write body against a strict schema, with the field paths /v1 uses. */
export function validateBodyWith<S extends TSchema>(schema: S, entity: string, body: unknown): Static<S> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('Invalid body', { '': 'must be a JSON object' })
  const validate = compile(bodyAjv, schema)
  if (!validate(body))
    throw badRequest(
      `Invalid ${entity} body`,
      collectErrors(validate.errors, (path) =>
        path.includes('.') ? 'is not a field of this object' : `is not a field of ${entity}`
      )
    )
  return body as Static<S>
}
