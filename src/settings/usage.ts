import type { Application, Params } from '../declarations'
import { usageOf } from '../auth/usage'

export type UsageItem = Awaited<ReturnType<typeof usageOf>>[number]

/** `settings/usage`: requests per API key and major version, with the last use (CONTRACT §8). */
export class UsageService {
  constructor(private readonly app: Application) {}

  async find(params: Params): Promise<UsageItem[]> {
    // Counts are kept in memory for a few seconds: write them first, so the page is current.
    await this.app.get('usage')?.flush()
    return usageOf(this.app.get('knex'), params.company!.id)
  }
}
