import cluster from 'node:cluster'
import type { Logger } from 'pino'
import { LocalBus, SyncBus } from './bus'
import { ClusterBus } from './cluster-bus'
import { RedisBus } from './redis-bus'

/**
 * The bus of this process: Redis with REDIS_URL (every instance and worker connects to it), else
 * the cluster primary's relay in a worker of `serve` (WEB_CONCURRENCY > 1), else this process alone.
 * `channel` is the Redis channel; SYNC_KEY sets it so that deployments sharing a Redis never mix.
 */
export function createBus(options: { redisUrl?: string; channel: string; logger: Logger }): SyncBus {
  if (options.redisUrl) return new RedisBus(options.redisUrl, options.channel, options.logger)
  if (cluster.isWorker) return new ClusterBus(options.logger)
  return new LocalBus(options.logger)
}
