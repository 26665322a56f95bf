import path from 'node:path'
import ts from 'typescript'

/** `--strict`, no emit, Node 16 modules: how an integrator's TypeScript project reads the client. */
export const STRICT: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.Node16,
  moduleResolution: ts.ModuleResolutionKind.Node16,
  esModuleInterop: true,
  skipLibCheck: true,
  types: []
}

export interface Diagnostic {
  /** Absolute path, or '' for a global diagnostic. */
  file: string
  /** 1-based, 0 when the diagnostic has no position. */
  line: number
  message: string
}

/**
 * The compiler's diagnostics of a program rooted at `file`; `text` replaces the file's contents
 * (or stands for a file that does not exist, resolving its imports from where it would be).
 */
export function compile(file: string, options: ts.CompilerOptions, text?: string): Diagnostic[] {
  const host = ts.createCompilerHost(options)
  const read = host.getSourceFile.bind(host)
  const exists = host.fileExists.bind(host)
  const isFile = (name: string) => text !== undefined && path.resolve(name) === path.resolve(file)
  host.fileExists = (name) => isFile(name) || exists(name)
  host.getSourceFile = (name, language, ...rest) =>
    isFile(name) ? ts.createSourceFile(name, text!, language) : read(name, language, ...rest)
  const program = ts.createProgram([file], options, host)
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined
    return {
      file: d.file ? path.resolve(d.file.fileName) : '',
      line: where ? where.line + 1 : 0,
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n')
    }
  })
}
