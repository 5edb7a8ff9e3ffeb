import * as vscode from 'vscode';
import type { Finding, Severity } from '../../core/app/pipeline';

export const DIAGNOSTIC_SOURCE = 'attest';

const SEVERITY: Record<Severity, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
  hint: vscode.DiagnosticSeverity.Hint,
};

export function toRange(range: Finding['range']): vscode.Range {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

export function toDiagnostic(finding: Finding): vscode.Diagnostic {
  const diagnostic = new vscode.Diagnostic(toRange(finding.range), finding.message, SEVERITY[finding.severity]);
  diagnostic.source = DIAGNOSTIC_SOURCE;
  diagnostic.code = finding.code;
  if (finding.code === 'unused-entry') diagnostic.tags = [vscode.DiagnosticTag.Unnecessary];
  return diagnostic;
}
