// Types of scripts/arch-graph.mjs (plain JS so that `npm run arch` runs without a build), for the tests.
export interface ImportEdge {
  /** src-relative path of the importing file, `/`-separated */
  from: string;
  /** src-relative path of the imported file */
  to: string;
  /** top-level directory of `from` (`root` for a loose file of src/) */
  fromDir: string;
  toDir: string;
  /** nothing of the import exists at run time */
  typeOnly: boolean;
  kind: 'static' | 'reexport' | 'dynamic' | 'typeref';
}
export interface FunctionFigure {
  file: string;
  name: string;
  line: number;
  lines: number;
  complexity: number;
}
export const PROJECT_ROOT: string;
export const ROOT_DIR: 'root';
export function topDir(srcRel: string): string;
export function importsOf(fileName: string, text: string): { sourceFile: unknown; imports: { spec: string; typeOnly: boolean; kind: ImportEdge['kind'] }[] };
export function analyzeSrc(root?: string): { files: string[]; edges: ImportEdge[]; functions: FunctionFigure[] };
export function directoryEdges(edges: ImportEdge[], keep?: (e: ImportEdge) => boolean): Map<string, ImportEdge[]>;
export function cycles(nodes: string[], dirEdgeKeys: Iterable<string>): string[][];
