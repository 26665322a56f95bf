/**
 * Errors the client raises itself, shaped like the API's error bodies (CONTRACT §3.2: `name`,
 * `message`, `code`, `className`, `data`) so that one `catch` reads both the same way.
 */
export class ClientError extends Error {
  constructor(
    readonly name: string,
    message: string,
    readonly code: number,
    readonly className: string,
    readonly data: Record<string, unknown> = {}
  ) {
    super(message)
  }

  toJSON() {
    return { name: this.name, message: this.message, code: this.code, className: this.className, data: this.data }
  }
}

/** What the timeout and connection errors say about the call. */
export interface CallDescription {
  path: string
  method: string
  timeoutMs?: number
}

/**
 * The call got no answer within its timeout (`name` Timeout, `code` 408). `data.waitedForConnection`
 * says it was never sent: the socket was reconnecting the whole time.
 */
export class CallTimeout extends ClientError {
  constructor(call: CallDescription & { timeoutMs: number }, waitedForConnection: boolean) {
    super(
      'Timeout',
      waitedForConnection
        ? `${call.method} ${call.path}: not sent, the connection was not back within ${call.timeoutMs} ms`
        : `${call.method} ${call.path}: no answer within ${call.timeoutMs} ms`,
      408,
      'timeout',
      { ...call, waitedForConnection }
    )
  }
}

/**
 * The socket closed while the call waited for its answer (`name` Unavailable, `code` 503). The
 * server may have carried it out: look before repeating a write.
 */
export class ConnectionLost extends ClientError {
  constructor(call: CallDescription, reason: string) {
    super(
      'Unavailable',
      `${call.method} ${call.path}: the connection closed (${reason}) before the answer came; the server may have carried it out`,
      503,
      'unavailable',
      { ...call, reason }
    )
  }
}

/** The client was closed (`client.close()` or the socket's own `disconnect()`): no call is sent any more. */
export class ClientClosed extends ClientError {
  constructor(call: CallDescription) {
    super('Unavailable', `${call.method} ${call.path}: the client is closed`, 503, 'unavailable', { ...call })
  }
}

/** An error answer of the HTTP API (uploads) as an Error with the body's fields. */
export function errorFromBody(status: number, body: unknown): ClientError {
  const fields = (body && typeof body === 'object' ? body : {}) as Partial<ClientError>
  return new ClientError(
    typeof fields.name === 'string' ? fields.name : 'GeneralError',
    typeof fields.message === 'string' ? fields.message : `HTTP ${status}`,
    typeof fields.code === 'number' ? fields.code : status,
    typeof fields.className === 'string' ? fields.className : 'general-error',
    fields.data && typeof fields.data === 'object' ? fields.data : {}
  )
}
