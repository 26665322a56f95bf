import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import type { Server } from 'node:http'
import { forEachDatabase, TestCompany } from '../support/harness'
import { HttpClient } from '../support/http'
import { createApp } from '../../src/app'
import type { Application } from '../../src/declarations'
import { parse as parseContentDisposition } from 'content-disposition'
import { signDownload } from '../../src/services/uploads/download-url'

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64'
)

/** Every stored file under `dir` (relative paths), to prove what an upload kept or removed. */
const storedFiles = (dir: string): string[] => {
  if (!fs.existsSync(dir)) return []
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .sort()
}

const form = (
  file?: { bytes: Buffer; name: string; type?: string; field?: string },
  fields: Record<string, string> = {}
) => {
  const body = new FormData()
  for (const [key, value] of Object.entries(fields)) body.append(key, value)
  if (file)
    body.append(
      file.field ?? 'file',
      new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'application/octet-stream' }),
      file.name
    )
  return body
}

forEachDatabase('uploads', (suite) => {
  let a: TestCompany
  let b: TestCompany
  let assignmentA: number
  let otherAssignmentA: number
  let eventA: number
  let photos: number
  let documents: number
  const dir = () => suite.server().app.get('uploads').dir as string
  const upload = (company: TestCompany, base: string, body: FormData) =>
    company.api.post(`${base}/uploads`, undefined, { raw: body })
  const png = (name = 'photo.png', fields: Record<string, string> = {}) => form({ bytes: PNG, name }, fields)

  const newAssignment = async (company: TestCompany) => {
    const customer = await company.api.post('/v1/customers', { companyName: 'Upload Customer' })
    const res = await company.api.post('/v1/assignments', { name: 'With files', customerId: customer.body.id })
    assert.equal(res.status, 201)
    return res.body.id as number
  }
  const newEvent = async (company: TestCompany, assignmentId: number) => {
    const types = await company.api.get('/v1/assignment-event-types')
    const res = await company.api.post('/v1/assignment-events', { assignmentId, typeId: types.body.items[0].id })
    assert.equal(res.status, 201)
    return res.body.id as number
  }

  before(async () => {
    a = await suite.company()
    b = await suite.company()
    assignmentA = await newAssignment(a)
    otherAssignmentA = await newAssignment(a)
    eventA = await newEvent(a, assignmentA)
    const categories = await a.api.get('/v1/upload-categories')
    ;[photos, documents] = categories.body.items.map((c: any) => c.id)
  })

  it('stores a multipart upload: sniffed type, size, sanitised name, parent and an absolute download link', async () => {
    const before = storedFiles(dir())
    const res = await upload(
      a,
      `/v1/assignments/${assignmentA}`,
      png('../../etc/Baustelle<1>.png', { categoryId: String(photos), description: 'Nordseite' })
    )
    assert.equal(res.status, 201)
    assert.deepEqual(Object.keys(res.body).sort(), [
      'additionalProperties',
      'assignmentEventId',
      'assignmentId',
      'categoryId',
      'createdAt',
      'description',
      'downloadUrl',
      'fileName',
      'fileSize',
      'id',
      'mimeType',
      'updatedAt'
    ])
    assert.equal(res.body.mimeType, 'image/png')
    assert.equal(res.body.fileSize, PNG.length)
    assert.equal(res.body.fileName, 'Baustelle_1_.png')
    assert.equal(res.body.assignmentId, assignmentA)
    assert.equal(res.body.assignmentEventId, null)
    assert.equal(res.body.categoryId, photos)
    assert.equal(res.body.description, 'Nordseite')
    assert.ok(
      res.body.downloadUrl.startsWith(
        `${suite.server().url}/v1/assignments/${assignmentA}/uploads/${res.body.id}/download?`
      ),
      res.body.downloadUrl
    )
    assert.equal(storedFiles(dir()).length, before.length + 1)
    const got = await a.api.get(`/v1/assignments/${assignmentA}/uploads/${res.body.id}`)
    assert.equal(got.status, 200)
    assert.deepEqual({ ...got.body, downloadUrl: null }, { ...res.body, downloadUrl: null })
  })

  it('streams the file from its downloadUrl without an API key, with its type and file name', async () => {
    const created = await upload(a, `/v1/assignments/${assignmentA}`, png('Plan – Süd.png'))
    const res = await fetch(created.body.downloadUrl)
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('content-type'), 'image/png')
    assert.equal(
      res.headers.get('content-disposition'),
      `attachment; filename="Plan _ Sud.png"; filename*=UTF-8''Plan%20%E2%80%93%20S%C3%BCd.png`
    )
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff')
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), PNG)
    const url = new URL(created.body.downloadUrl)
    const described = await suite.server().http.get(url.pathname + url.search)
    assert.equal(described.status, 200)
    assert.equal(described.headers.get('content-length'), String(PNG.length))
  })

  it('names a download per RFC 6266: an ASCII filename plus filename* for any non-ASCII name', async () => {
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\n')
    const created = await upload(
      a,
      `/v1/assignments/${assignmentA}`,
      form({ bytes: pdf, name: 'Angebot Müller.pdf', type: 'application/pdf' })
    )
    assert.equal(created.status, 201)
    assert.equal(created.body.fileName, 'Angebot Müller.pdf')
    const res = await fetch(created.body.downloadUrl)
    assert.equal(res.status, 200)
    const header = res.headers.get('content-disposition') ?? ''
    // Latin-1 is not ASCII: without filename* a browser would have to guess the charset of "Müller".
    assert.match(header, /^[\x20-\x7e]+$/, header)
    const parsed = parseContentDisposition(header)
    assert.equal(parsed.type, 'attachment')
    assert.equal(parsed.parameters.filename, 'Angebot Müller.pdf')
    assert.equal(header.match(/filename="([^"]*)"/)?.[1], 'Angebot Muller.pdf')
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), pdf)
    const ascii = await upload(a, `/v1/assignments/${assignmentA}`, form({ bytes: pdf, name: 'Angebot 42.pdf' }))
    assert.equal(
      (await fetch(ascii.body.downloadUrl)).headers.get('content-disposition'),
      'attachment; filename="Angebot 42.pdf"'
    )
  })

  it('cannot inject headers or paths through a file name (quotes, backslashes, semicolons, CR/LF, separators)', async () => {
    // Raw multipart so that the name reaches the server as is (FormData would escape it):
    // RFC 5987 filename* carries CR/LF, quotes and backslashes, the plain one a path.
    const nasty = `Rechnung "Q4"; \\evil\r\nSet-Cookie: stolen=1\r\n\r\n<b>.pdf`
    const encoded = encodeURIComponent(nasty).replace(/'/g, '%27')
    const boundary = 'crewclock-nasty-name'
    for (const disposition of [
      `filename*=UTF-8''${encoded}`,
      `filename="..\\..\\x;y.pdf"`,
      `filename="a/b/../c; name=evil.pdf"`
    ]) {
      const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; ${disposition}\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n\r\n--${boundary}--\r\n`
      const created = await a.api.post(`/v1/assignments/${assignmentA}/uploads`, undefined, {
        raw: body,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }
      })
      assert.equal(created.status, 201, disposition)
      assert.doesNotMatch(created.body.fileName, /[\r\n"\\/]/, created.body.fileName)
      const res = await fetch(created.body.downloadUrl)
      assert.equal(res.status, 200)
      assert.equal(res.headers.get('set-cookie'), null)
      const header = res.headers.get('content-disposition') ?? ''
      assert.match(header, /^[\x20-\x7e]+$/, header)
      const parsed = parseContentDisposition(header)
      assert.deepEqual(Object.keys(parsed.parameters), ['filename'], header)
      assert.equal(parsed.parameters.filename, created.body.fileName)
    }
    // A name patched in later goes the same way.
    const patched = await a.api.patch(
      `/v1/assignments/${assignmentA}/uploads/${(await upload(a, `/v1/assignments/${assignmentA}`, png())).body.id}`,
      { fileName: nasty }
    )
    assert.equal(patched.status, 200)
    const res = await fetch(patched.body.downloadUrl)
    assert.equal(res.headers.get('set-cookie'), null)
    assert.equal(
      parseContentDisposition(res.headers.get('content-disposition') ?? '').parameters.filename,
      patched.body.fileName
    )
  })

  it('removes at start the temporary files of uploads cut off by a crash, and nothing else', async function () {
    const uploadsDir = path.resolve(`./.tmp/test/uploads-crash-${suite.db.name}-${process.pid}`)
    fs.rmSync(uploadsDir, { recursive: true, force: true })
    const startApp = async () => {
      const app: Application = createApp({
        redisUrl: '',
        database: { url: suite.db.url },
        dataDir: suite.server().app.get('dataDir'),
        uploads: { dir: uploadsDir }
      } as any)
      const server: Server = await app.listen(0)
      const address = server.address()
      return { app, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` }
    }
    const put = (relative: string, ageMs: number) => {
      const file = path.join(uploadsDir, relative)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, 'half a PDF')
      const at = new Date(Date.now() - ageMs)
      fs.utimesSync(file, at, at)
    }
    const hour = 60 * 60 * 1000
    // What a killed process leaves: `<key>.<uuid>.partial` next to where the file would have gone.
    const leftover = `${a.id}/${randomUUID()}.${randomUUID()}.partial`
    // Being written right now by another worker sharing the directory: not ours to remove.
    const inProgress = `${a.id}/${randomUUID()}.${randomUUID()}.partial`
    // Files that are not our temporaries, however they are named.
    const strangers = [
      'notes.partial',
      `${a.id}/report.pdf.partial`,
      `${a.id}/${randomUUID()}`,
      `backup/${randomUUID()}.tmp`
    ]
    put(leftover, hour)
    put(inProgress, 0)
    for (const name of strangers) put(name, hour)

    const first = await startApp()
    let finished: any
    try {
      assert.ok(!fs.existsSync(path.join(uploadsDir, leftover)), 'the crash leftover is gone')
      assert.ok(fs.existsSync(path.join(uploadsDir, inProgress)), 'a recent temporary file is left to its writer')
      for (const name of strangers) assert.ok(fs.existsSync(path.join(uploadsDir, name)), name)

      const api = new HttpClient(first.url, a.apiKey)
      finished = await api.post(`/v1/assignments/${assignmentA}/uploads`, undefined, { raw: png('kept.png') })
      assert.equal(finished.status, 201)
      const beforeRefused = storedFiles(uploadsDir)
      const config = first.app.get('uploads')
      first.app.set('uploads', { ...config, maxBytes: 1024 })
      const refused = await api.post(`/v1/assignments/${assignmentA}/uploads`, undefined, {
        raw: form({ bytes: Buffer.alloc(256 * 1024, 7), name: 'big.bin' })
      })
      assert.equal(refused.status, 413)
      assert.deepEqual(storedFiles(uploadsDir), beforeRefused, 'a refused upload leaves no file, temporary or not')
    } finally {
      await first.app.teardown()
    }
    // The finished upload's file survives the next start and still downloads.
    const files = storedFiles(uploadsDir)
    const second = await startApp()
    try {
      assert.deepEqual(storedFiles(uploadsDir), files)
      const url = new URL(finished.body.downloadUrl)
      const res = await fetch(`${second.url}${url.pathname}${url.search}`)
      assert.equal(res.status, 200)
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), PNG)
    } finally {
      await second.app.teardown()
      fs.rmSync(uploadsDir, { recursive: true, force: true })
    }
  })

  it('falls back to the declared type when the content is not recognisable', async () => {
    const res = await upload(
      a,
      `/v1/assignments/${assignmentA}`,
      form({ bytes: Buffer.from('Aufmaß: 3 m²\n'), name: 'notes.txt', type: 'text/plain; charset=utf-8' })
    )
    assert.equal(res.status, 201)
    assert.equal(res.body.mimeType, 'text/plain')
    const pdf = await upload(
      a,
      `/v1/assignments/${assignmentA}`,
      form({ bytes: Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n'), name: 'offer.bin', type: 'text/plain' })
    )
    assert.equal(pdf.body.mimeType, 'application/pdf')
  })

  it('refuses tampered and expired download links with 403 Forbidden', async () => {
    const created = await upload(a, `/v1/assignments/${assignmentA}`, png())
    const url = new URL(created.body.downloadUrl)
    const signature = url.searchParams.get('signature')!
    const flipped = new URL(url)
    flipped.searchParams.set('signature', (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1))
    const longer = new URL(url)
    longer.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600))
    const otherId = new URL(url.href.replace(`/uploads/${created.body.id}/`, `/uploads/${created.body.id - 1}/`))
    const otherParent = new URL(url.href.replace(`/assignments/${assignmentA}/`, `/assignments/${otherAssignmentA}/`))
    const unsigned = new URL(url)
    unsigned.search = ''
    for (const tampered of [flipped, longer, otherId, otherParent, unsigned]) {
      const res = await suite.server().http.get(tampered.pathname + tampered.search)
      assert.equal(res.status, 403, tampered.href)
      assert.equal(res.body.name, 'Forbidden')
    }
    const past = Math.floor(Date.now() / 1000) - 1
    const path = `/v1/assignments/${assignmentA}/uploads/${created.body.id}/download`
    const res = await suite
      .server()
      .http.get(`${path}?expires=${past}&signature=${signDownload(suite.server().app.get('appSecret'), path, past)}`)
    assert.equal(res.status, 403)
    assert.match(res.body.message, /expired/)
    assert.equal((await fetch(created.body.downloadUrl)).status, 200)
  })

  it('requires a non-empty file in the part named "file", as multipart', async () => {
    const before = storedFiles(dir())
    const base = `/v1/assignments/${assignmentA}/uploads`
    const empty = await upload(a, `/v1/assignments/${assignmentA}`, form({ bytes: Buffer.alloc(0), name: 'empty.txt' }))
    assert.equal(empty.status, 400)
    assert.equal(empty.body.data.validationErrors.file, 'must not be empty')
    const missing = await upload(a, `/v1/assignments/${assignmentA}`, form(undefined, { description: 'no file' }))
    assert.equal(missing.status, 400)
    assert.ok(missing.body.data.validationErrors.file)
    const textFile = await upload(a, `/v1/assignments/${assignmentA}`, form(undefined, { file: 'not a file' }))
    assert.equal(textFile.body.data.validationErrors.file, 'must be a file part, not a text field')
    const wrongField = await upload(
      a,
      `/v1/assignments/${assignmentA}`,
      form({ bytes: PNG, name: 'x.png', field: 'attachment' })
    )
    assert.equal(wrongField.status, 400)
    assert.ok(wrongField.body.data.validationErrors.attachment)
    const twoFiles = png('one.png')
    twoFiles.append('file', new Blob([new Uint8Array(PNG)]), 'two.png')
    const second = await upload(a, `/v1/assignments/${assignmentA}`, twoFiles)
    assert.equal(second.status, 400)
    assert.ok(second.body.data.validationErrors.file)
    const malformed = await a.api.post(base, undefined, {
      raw: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' }
    })
    assert.equal(malformed.status, 400)
    assert.match(malformed.body.message, /Malformed multipart/)
    const onItem = await a.api.post(`${base}/1`, undefined, { raw: png() })
    assert.equal(onItem.status, 405)
    const json = await a.api.post(base, { description: 'not multipart' })
    assert.equal(json.status, 415)
    // One 400 names the file, the fields the schema refuses and the references together.
    const all = await upload(
      a,
      `/v1/assignments/${assignmentA}`,
      form(undefined, { mimeType: 'text/html', categoryId: '2147483000' })
    )
    assert.equal(all.status, 400)
    assert.deepEqual(Object.keys(all.body.data.validationErrors).sort(), ['categoryId', 'file', 'mimeType'])
    const badReference = await upload(
      a,
      `/v1/assignments/${assignmentA}`,
      png('x.png', { mimeType: 'text/html', categoryId: '2147483000' })
    )
    assert.deepEqual(Object.keys(badReference.body.data.validationErrors).sort(), ['categoryId', 'mimeType'])
    const unknown = await upload(a, `/v1/assignments/${assignmentA}`, png('x.png', { mimeType: 'text/html' }))
    assert.equal(unknown.status, 400)
    assert.equal(unknown.body.data.validationErrors.mimeType, 'is read-only')
    assert.deepEqual(storedFiles(dir()), before)
  })

  it('answers 413 for a file over uploads.maxBytes and keeps nothing', async () => {
    const config = suite.server().app.get('uploads')
    suite.server().app.set('uploads', { ...config, maxBytes: 1024 })
    try {
      const before = storedFiles(dir())
      const rowsBefore = await suite.server().knex('uploads').count({ n: '*' })
      const res = await upload(
        a,
        `/v1/assignments/${assignmentA}`,
        form({ bytes: Buffer.alloc(64 * 1024, 7), name: 'big.bin' })
      )
      assert.equal(res.status, 413)
      assert.equal(res.body.name, 'PayloadTooLarge')
      assert.deepEqual(storedFiles(dir()), before)
      assert.deepEqual(await suite.server().knex('uploads').count({ n: '*' }), rowsBefore)
      const justOver = await upload(
        a,
        `/v1/assignments/${assignmentA}`,
        form({ bytes: Buffer.alloc(1025, 7), name: 'over.bin' })
      )
      assert.equal(justOver.status, 413)
      const exact = await upload(
        a,
        `/v1/assignments/${assignmentA}`,
        form({ bytes: Buffer.alloc(1024, 7), name: 'exact.bin' })
      )
      assert.equal(exact.status, 201)
      assert.equal(exact.body.fileSize, 1024)
      assert.equal(storedFiles(dir()).length, before.length + 1)
    } finally {
      suite.server().app.set('uploads', config)
    }
  })

  it('needs an active upload category of the company; a refused upload leaves no file behind', async () => {
    const before = storedFiles(dir())
    const foreign = (await b.api.get('/v1/upload-categories')).body.items[0].id
    const res = await upload(a, `/v1/assignments/${assignmentA}`, png('x.png', { categoryId: String(foreign) }))
    assert.equal(res.status, 400)
    assert.match(res.body.data.validationErrors.categoryId, /references no record/)
    const notAnId = await upload(a, `/v1/assignments/${assignmentA}`, png('x.png', { categoryId: 'photos' }))
    assert.equal(notAnId.status, 400)
    assert.ok(notAnId.body.data.validationErrors.categoryId)
    const retired = await a.api.post('/v1/upload-categories', { name: 'Retired' })
    await a.api.patch(`/v1/upload-categories/${retired.body.id}`, { deactivatedAt: '2026-01-01T00:00:00Z' })
    const inactive = await upload(
      a,
      `/v1/assignments/${assignmentA}`,
      png('x.png', { categoryId: String(retired.body.id) })
    )
    assert.equal(inactive.status, 400)
    assert.match(inactive.body.data.validationErrors.categoryId, /deactivated/)
    assert.deepEqual(storedFiles(dir()), before)
  })

  it('rejects an unauthenticated upload before storing anything', async () => {
    const before = storedFiles(dir())
    const res = await suite.server().http.post(`/v1/assignments/${assignmentA}/uploads`, undefined, { raw: png() })
    assert.equal(res.status, 401)
    const bad = await suite
      .server()
      .http.withKey('ck_invalid')
      .post(`/v1/assignments/${assignmentA}/uploads`, undefined, { raw: png() })
    assert.equal(bad.status, 401)
    assert.deepEqual(storedFiles(dir()), before)
  })

  it('scopes uploads to the parent in the path: assignment and event bases are separate', async () => {
    const ofAssignment = await upload(a, `/v1/assignments/${assignmentA}`, png('a.png'))
    const ofEvent = await upload(a, `/v1/assignment-events/${eventA}`, png('e.png', { categoryId: String(documents) }))
    assert.equal(ofEvent.status, 201)
    assert.equal(ofEvent.body.assignmentEventId, eventA)
    assert.equal(ofEvent.body.assignmentId, null)
    const other = `/v1/assignments/${otherAssignmentA}/uploads`
    for (const id of [ofAssignment.body.id, ofEvent.body.id]) {
      assert.equal((await a.api.get(`${other}/${id}`)).status, 404)
      assert.equal((await a.api.patch(`${other}/${id}`, { description: 'moved?' })).status, 404)
      assert.equal((await a.api.delete(`${other}/${id}`)).status, 404)
    }
    assert.equal((await a.api.get(`/v1/assignments/${assignmentA}/uploads/${ofEvent.body.id}`)).status, 404)
    assert.equal((await a.api.get(`/v1/assignment-events/${eventA}/uploads/${ofAssignment.body.id}`)).status, 404)
    assert.equal((await a.api.get(other)).body.total, 0)
    const eventList = await a.api.get(`/v1/assignment-events/${eventA}/uploads`)
    assert.deepEqual(
      eventList.body.items.map((u: any) => u.id),
      [ofEvent.body.id]
    )
  })

  it('validates the parent id of the path (400) and its existence (404)', async () => {
    const bad = await a.api.get('/v1/assignments/abc/uploads')
    assert.equal(bad.status, 400)
    assert.ok(bad.body.data.validationErrors.assignmentId)
    assert.equal((await a.api.get('/v1/assignment-events/2147483648/uploads')).status, 400)
    assert.equal((await a.api.get('/v1/assignments/2147483647/uploads')).status, 404)
    assert.equal((await upload(a, '/v1/assignments/2147483647', png())).status, 404)
    const badId = await a.api.get(`/v1/assignments/${assignmentA}/uploads/x1`)
    assert.equal(badId.status, 400)
    assert.ok(badId.body.data.validationErrors.uploadId)
  })

  it('lists with the id and categoryId filters and rejects others', async () => {
    const assignmentId = await newAssignment(a)
    const base = `/v1/assignments/${assignmentId}`
    const photo = await upload(a, base, png('1.png', { categoryId: String(photos) }))
    const doc = await upload(a, base, png('2.png', { categoryId: String(documents) }))
    await upload(a, base, png('3.png'))
    const all = await a.api.get(`${base}/uploads`)
    assert.deepEqual([all.body.total, all.body.pages, all.body.size], [3, 1, 10])
    assert.deepEqual(
      (await a.api.get(`${base}/uploads`, { categoryId: documents })).body.items.map((u: any) => u.id),
      [doc.body.id]
    )
    assert.deepEqual(
      (await a.api.get(`${base}/uploads`, { 'id[$in]': [photo.body.id, doc.body.id], '$sort[id]': -1 })).body.items.map(
        (u: any) => u.id
      ),
      [doc.body.id, photo.body.id]
    )
    assert.equal((await a.api.get(`${base}/uploads`, { categoryId: 'null' })).body.total, 1)
    const unknown = await a.api.get(`${base}/uploads`, { fileName: '1.png' })
    assert.equal(unknown.status, 400)
    assert.ok(unknown.body.data.validationErrors.fileName)
  })

  it('patches description, categoryId and fileName (sanitised) and nothing else', async () => {
    const created = await upload(a, `/v1/assignments/${assignmentA}`, png('before.png', { description: 'old' }))
    const item = `/v1/assignments/${assignmentA}/uploads/${created.body.id}`
    const res = await a.api.patch(item, {
      description: 'new',
      categoryId: documents,
      fileName: 'sub/dir\\Abnahme:final.png'
    })
    assert.equal(res.status, 200)
    assert.equal(res.body.description, 'new')
    assert.equal(res.body.categoryId, documents)
    assert.equal(res.body.fileName, 'Abnahme_final.png')
    const download = await fetch(res.body.downloadUrl)
    assert.match(download.headers.get('content-disposition') ?? '', /filename="Abnahme_final\.png"/)
    const cleared = await a.api.patch(item, { description: null, categoryId: null })
    assert.deepEqual([cleared.body.description, cleared.body.categoryId], [null, null])
    for (const [body, field, message] of [
      [{ mimeType: 'text/html' }, 'mimeType', 'is read-only'],
      [{ fileSize: 1 }, 'fileSize', 'is read-only'],
      [{ assignmentId: otherAssignmentA }, 'assignmentId', 'is read-only'],
      [{ fileName: '..' }, 'fileName', 'has no usable characters'],
      [{ fileName: null }, 'fileName', undefined]
    ] as const) {
      const refused = await a.api.patch(item, body)
      assert.equal(refused.status, 400, JSON.stringify(body))
      if (message) assert.equal(refused.body.data.validationErrors[field], message)
      else assert.ok(refused.body.data.validationErrors[field])
    }
    const multipart = await a.api.patch(item, undefined, { raw: form(undefined, { description: 'x' }) })
    assert.equal(multipart.status, 415)
  })

  it('deletes an upload with its stored file; its download link then answers 404', async () => {
    const before = storedFiles(dir())
    const created = await upload(a, `/v1/assignment-events/${eventA}`, png('gone.png'))
    assert.equal(storedFiles(dir()).length, before.length + 1)
    const res = await a.api.delete(`/v1/assignment-events/${eventA}/uploads/${created.body.id}`)
    assert.equal(res.status, 204)
    assert.equal(res.text, '')
    assert.deepEqual(storedFiles(dir()), before)
    assert.equal((await a.api.get(`/v1/assignment-events/${eventA}/uploads/${created.body.id}`)).status, 404)
    const download = await fetch(created.body.downloadUrl)
    assert.equal(download.status, 404)
  })

  it('removes uploads, files included, with their assignment or event', async () => {
    const assignmentId = await newAssignment(a)
    const eventId = await newEvent(a, assignmentId)
    const before = storedFiles(dir())
    const own = await upload(a, `/v1/assignments/${assignmentId}`, png())
    const ofEvent = await upload(a, `/v1/assignment-events/${eventId}`, png())
    assert.equal(storedFiles(dir()).length, before.length + 2)
    assert.equal((await a.api.delete(`/v1/assignments/${assignmentId}`)).status, 204)
    assert.deepEqual(storedFiles(dir()), before)
    assert.equal((await suite.server().knex('uploads').whereIn('id', [own.body.id, ofEvent.body.id])).length, 0)
    assert.equal((await fetch(own.body.downloadUrl)).status, 404)
    assert.equal((await a.api.get(`/v1/assignment-events/${eventId}/uploads`)).status, 404)
    const lastEvent = await newEvent(a, assignmentA)
    const lastUpload = await upload(a, `/v1/assignment-events/${lastEvent}`, png())
    assert.equal(storedFiles(dir()).length, before.length + 1)
    assert.equal((await a.api.delete(`/v1/assignment-events/${lastEvent}`)).status, 204)
    assert.deepEqual(storedFiles(dir()), before)
    assert.equal((await fetch(lastUpload.body.downloadUrl)).status, 404)
  })

  it('is isolated: company B can neither see, change, delete nor add to company A uploads', async () => {
    const created = await upload(a, `/v1/assignments/${assignmentA}`, png('only-a.png'))
    const item = `/v1/assignments/${assignmentA}/uploads/${created.body.id}`
    assert.equal((await b.api.get(item)).status, 404)
    assert.equal((await b.api.patch(item, { description: 'Hacked' })).status, 404)
    assert.equal((await b.api.delete(item)).status, 404)
    assert.equal((await b.api.get(`/v1/assignments/${assignmentA}/uploads`)).status, 404)
    const before = storedFiles(dir())
    assert.equal((await upload(b, `/v1/assignments/${assignmentA}`, png())).status, 404)
    assert.deepEqual(storedFiles(dir()), before)
    const assignmentB = await newAssignment(b)
    const withForeignCategory = await upload(
      b,
      `/v1/assignments/${assignmentB}`,
      png('x.png', { categoryId: String(photos) })
    )
    assert.equal(withForeignCategory.status, 400)
    assert.ok(withForeignCategory.body.data.validationErrors.categoryId)
    assert.equal((await b.api.get(`/v1/assignments/${assignmentB}/uploads`)).body.total, 0)
    assert.equal((await a.api.get(item)).body.description, null)
  })
})
