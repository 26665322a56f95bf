import { GeneralError } from '@feathersjs/errors'
import type { Knex } from 'knex'
import type { Dialect } from '../../db/dialect'
import { ResourceService } from '../../resources/service'
import type { Resource } from '../../resources/define-resource'
import type { Params } from '../../declarations'
import type { UploadParams, UploadParent } from './uploads.schema'

/**
 * The declared-resource service, narrowed to the parent its path names: an upload of another
 * assignment or event is as missing as one of another company.
 */
export class UploadService extends ResourceService {
  constructor(
    resource: Resource,
    knex: Knex,
    dialect: Dialect,
    readonly parent: UploadParent
  ) {
    super(resource, knex, dialect)
  }

  parentOf(params?: Params) {
    const parent = (params as UploadParams | undefined)?.uploadParent
    if (!parent) throw new GeneralError('No upload parent in the request context')
    return parent
  }

  scoped(params?: Params) {
    const { field, id } = this.parentOf(params)
    return super.scoped(params).andWhere(`uploads.${field}`, id)
  }

  async find(params: Params = {}) {
    const { field, id } = this.parentOf(params)
    const list = params.list ?? { page: 0, size: 10, sort: [['id', 1]], where: {} }
    return super.find({ ...params, list: { ...list, where: { ...list.where, [`uploads.${field}`]: id } } })
  }
}
