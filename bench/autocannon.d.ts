// The subset of autocannon's programmatic API the harness uses (the package ships no types).
declare module 'autocannon' {
  namespace autocannon {
    interface Histogram {
      average: number
      mean: number
      p50: number
      p90: number
      p99: number
      max: number
      total: number
    }
    interface Request {
      method?: string
      path?: string
      headers?: Record<string, string>
      body?: string
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request
    }
    interface Options {
      url: string
      connections?: number
      duration?: number
      pipelining?: number
      headers?: Record<string, string>
      requests?: Request[]
      timeout?: number
    }
    interface Result {
      requests: Histogram
      latency: Histogram
      throughput: Histogram
      errors: number
      timeouts: number
      non2xx: number
      '2xx': number
      duration: number
      statusCodeStats?: Record<string, { count: number }>
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>
  export = autocannon
}
