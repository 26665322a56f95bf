import { MethodNotAllowed } from '@feathersjs/errors'
import type { Context, Next } from 'koa'
import type { Application } from '../declarations'

/**
 * Feathers maps `POST /v1/customers/5` to `create` and drops the id; crewclock answers 405
 * instead, so a client that meant PATCH does not create a record by accident.
 */
export const noPostOnItems = (app: Application) => async (ctx: Context, next: Next) => {
  if (ctx.method === 'POST' && app.lookup(ctx.path)?.params.__id !== undefined) {
    throw new MethodNotAllowed('POST is not supported on an item path; use PATCH to change a record')
  }
  await next()
}
