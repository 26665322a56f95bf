import type { HookContext as FeathersHookContext, NextFunction, Query, ServiceInterface } from '@feathersjs/feathers'
import type { Application as FeathersApplication } from '@feathersjs/koa'
import type { KnexAdapterParams } from '@feathersjs/knex'
import type { ApplicationConfiguration } from './configuration'

export type { NextFunction }

/** The company a request acts for; taken from the authenticated key, never from client input. */
export interface CompanyContext {
  id: number
  name: string
  country: string
  timezone: string
}

/** The admin user a key acts as: every `...ById` written by the request is this user. */
export interface ActingUser {
  id: number
  fullName: string
  email: string
  roleType: string
}

export interface Params<Q = Query> extends KnexAdapterParams<Q> {
  company?: CompanyContext
  user?: ActingUser
  /** The key of an external call: `scopes` as stored (see src/auth/scopes.ts), checked by `requireScope`. */
  apiKey?: { id: number; scopes: string[] }
  /** REST only: filled with the key's RateLimit-* headers, which the HTTP layer sends (CONTRACT §10.2). */
  rateLimitHeaders?: Record<string, string>
  /** Set by the JWT strategy for a settings-page token (an admin's login), which /v1 refuses. */
  settingsLogin?: boolean
  // `list` (the validated list query of a find) is added by src/resources/query.ts: this module
  // sits below every layer and imports none of them.
}

/**
 * The services by path. Their owners add them by module augmentation, as the Feathers generator
 * does: the /v1 collections derived from their declarations (src/services/declared.ts),
 * `authentication` (src/auth/authentication.ts). Paths built at run time (nested uploads, the
 * /spec routes, settings/...) fall to the index signature.
 */
export interface ServiceTypes {
  // Feathers' own configure callbacks (rest(), socketio(), authentication) take an Application<any>, and its
  // hook maps are invariant in the service type: only `any` here keeps this app assignable to theirs.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- library seam, see above
  [path: string]: any
}

// Parts of the app add what they set to it (declare module './declarations'), next to where they set it.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by module augmentation
export interface Configuration extends ApplicationConfiguration {}

export type Application = FeathersApplication<ServiceTypes, Configuration>
export type HookContext<S = ServiceInterface> = FeathersHookContext<Application, S> & { params: Params }

declare module '@feathersjs/feathers' {
  interface Params {
    company?: CompanyContext
  }
}
