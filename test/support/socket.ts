import { feathers, type Application } from '@feathersjs/feathers'
import socketio from '@feathersjs/socketio-client'
import authentication from '@feathersjs/authentication-client'
import { io, Socket } from 'socket.io-client'

/** A Feathers client over socket.io, as an integrator's dashboard would use it. */
export function socketClient(url: string): { client: Application; socket: Socket; close: () => void } {
  const socket: Socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false })
  const client = feathers()
  client.configure(socketio(socket, { timeout: 60000 }))
  client.configure(authentication({ storage: undefined as any }))
  return { client, socket, close: () => void socket.close() }
}
