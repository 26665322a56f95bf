import type { Upload, UploadData } from './api.generated'
import { postUpload } from './uploads'

/**
 * Uploads a file to an assignment or assignment event over REST, without a client. Kept for
 * code written before uploads were a service: `client.uploads('assignments', id).create({ file })`
 * does the same through any client.
 */
export function uploadFile(
  baseUrl: string,
  apiKey: string,
  owner: 'assignments' | 'assignment-events',
  ownerId: number,
  file: { name: string; content: Blob },
  fields: Pick<UploadData, 'categoryId' | 'description'> = {},
  fetchImpl: typeof fetch = (input, init) => fetch(input, init)
): Promise<Upload> {
  const url = `${baseUrl.replace(/\/+$/, '')}/v1/${owner}/${ownerId}/uploads`
  return postUpload({ apiKey, fetch: fetchImpl, urlOf: () => url }, url, {
    file: file.content,
    fileName: file.name,
    ...fields
  })
}
