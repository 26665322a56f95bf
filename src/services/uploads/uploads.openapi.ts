import type { Json, OpenApiTools, PathItems } from '../../resources/openapi'
import { pathTemplate } from '../../resources/openapi'
import { uploadResource, UploadParent } from './uploads.schema'
import { downloadPath } from './download-url'

const pascal = (text: string) => text.replace(/(^|-)(\w)/g, (_m, _s, c: string) => c.toUpperCase())

/**
 * What the generated description of an upload collection cannot know: its POST takes
 * multipart/form-data, and `downloadUrl` leads to a signed, key-less download route.
 */
export function uploadOperations(tools: OpenApiTools, parent: UploadParent, feathersPath: string): PathItems {
  const tags = [tools.tag(uploadResource, feathersPath)]
  const field = (name: string) => tools.schema(uploadResource.fields[name].schema)
  const multipart: Json = {
    type: 'object',
    required: ['file'],
    additionalProperties: false,
    properties: {
      file: {
        type: 'string',
        format: 'binary',
        description: 'The file; not empty, at most `uploads.maxBytes` (25 MiB by default). Its name becomes `fileName`.'
      },
      categoryId: { ...field('categoryId'), description: 'An active upload category of the company.' },
      description: field('description'),
      additionalProperties: field('additionalProperties')
    }
  }
  const downloadErrors = tools.errors(404)
  delete downloadErrors['401']
  return {
    [pathTemplate(feathersPath)]: {
      post: {
        tags,
        summary: `Upload a file to a ${parent.entity}`,
        description: `Needs the scope \`${parent.collection}:write\`. \`mimeType\` is sniffed from the content (else the part's declared type); \`fileName\` is the part's file name, sanitised.`,
        operationId: `create${pascal(parent.collection)}Upload`,
        parameters: [tools.pathParameter(parent.field)],
        requestBody: { required: true, content: { 'multipart/form-data': { schema: multipart } } },
        responses: {
          '201': tools.json(tools.resourceRef(uploadResource), 'Created.'),
          ...tools.errors(401, 403, 400, 404, 413, 415)
        }
      }
    },
    [downloadPath(pathTemplate(feathersPath), '{uploadId}')]: {
      get: {
        tags,
        summary: 'Download the file of an upload',
        description:
          "The `downloadUrl` of an upload: no API key needed until the link expires. Served as an attachment with the upload's `mimeType`.",
        operationId: `download${pascal(parent.collection)}Upload`,
        security: [],
        parameters: [
          tools.pathParameter(parent.field),
          tools.pathParameter('uploadId'),
          {
            name: 'expires',
            in: 'query',
            required: true,
            description: 'Expiry of the link (Unix seconds).',
            schema: { type: 'integer' }
          },
          {
            name: 'signature',
            in: 'query',
            required: true,
            description: 'HMAC of the upload id and the expiry.',
            schema: { type: 'string' }
          }
        ],
        responses: {
          '200': {
            description: 'The file.',
            headers: {
              'Content-Disposition': { description: '`attachment` with the file name.', schema: { type: 'string' } }
            },
            content: { '*/*': { schema: { type: 'string', format: 'binary' } } }
          },
          '403': {
            description: 'The link was tampered with or has expired.',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } }
          },
          ...downloadErrors
        }
      }
    }
  }
}
