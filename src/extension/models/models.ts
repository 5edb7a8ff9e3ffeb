import * as os from 'node:os';
import * as vscode from 'vscode';
import type { DownloadProgress, Loaded, ModelSection, ModelsHost } from '../../core/app/models';

/** Said once a session, for both models: without ONNX Runtime neither can run. */
let saidNoRuntime = false;

function sayNoRuntimeOnce(): void {
  if (saidNoRuntime) return;
  saidNoRuntime = true;
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      'ONNX Runtime has no build for this platform ({0}), so Attest runs without its local models: support verdicts rest on relevance alone, and Find Evidence ranks papers by their words.',
      `${process.platform}-${process.arch}`,
    ),
  );
}

/** What the editor says of each model: why Attest wants it, in the consent prompt, and the command that downloads it. */
const MODEL_UI: Readonly<Record<ModelSection, { readonly purpose: string; readonly downloadCommand: string }>> = {
  'attest.nli': {
    purpose: vscode.l10n.t(
      "Attest judges whether cited abstracts support your sentences with an NLI model (about 90 MB). Without it, only cited abstracts that share none of the sentence's key terms are caught.",
    ),
    downloadCommand: 'attest.downloadNliModel',
  },
  'attest.retrieval.encoder': {
    purpose: vscode.l10n.t('Find Evidence ranks papers by meaning as well as words with a sentence encoder (about 35 MB). Without it, ranking is by words alone.'),
    downloadCommand: 'attest.downloadEncoder',
  },
};

/**
 * The editor as the models' host: models are downloaded into Attest's global storage once the user
 * agrees, with progress and cancel in a notification; failures are logged and shown.
 */
export function editorModelsHost(storage: vscode.Uri, log: vscode.LogOutputChannel): ModelsHost {
  return {
    base: workspaceFolder,
    folderName: (dir) => dir,
    downloads: {
      folder: storage.fsPath,
      consent: askConsent,
      withProgress: downloadWithProgress,
      offer: (repo, section) => offerDownload(repo, section, log),
    },
    noRuntime: sayNoRuntimeOnce,
    failed: (error) => {
      log.error(error.message);
      void vscode.window.showErrorMessage(vscode.l10n.t('Attest could not load the model: {0}', error.message));
    },
    log: (message) => log.info(message),
  };
}

/** The download command's end: says that the model is ready. */
export function sayReady(loaded: Loaded<unknown> | undefined): void {
  if (loaded) void vscode.window.showInformationMessage(vscode.l10n.t('The model {0} is ready.', loaded.name));
}

/** Whether the user agrees to the download, by the prompt's button. */
async function askConsent(repo: string, section: ModelSection): Promise<boolean> {
  const download = vscode.l10n.t('Download');
  const choice = await vscode.window.showInformationMessage(
    vscode.l10n.t('{0} ({1}, downloaded once from Hugging Face and run on this machine.)', MODEL_UI[section].purpose, repo),
    download,
    vscode.l10n.t('Not Now'),
  );
  return choice === download;
}

/** Runs a download in a notification with its progress and a Cancel; a cancelled download resumes next time. */
function downloadWithProgress(repo: string, download: (signal: AbortSignal, onProgress: (progress: DownloadProgress) => void) => Promise<void>): Promise<boolean> {
  return Promise.resolve(
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Downloading {0}', repo), cancellable: true }, async (progress, token) => {
      const controller = new AbortController();
      token.onCancellationRequested(() => controller.abort());
      let reported = 0;
      try {
        await download(controller.signal, ({ file, receivedBytes, totalBytes }) => {
          if (!totalBytes) return;
          const percent = Math.floor((100 * receivedBytes) / totalBytes);
          progress.report({ message: `${file} ${percent}%`, increment: percent - reported });
          reported = percent >= 100 ? 0 : percent;
        });
        return true;
      } catch (error) {
        if (controller.signal.aborted) {
          void vscode.window.showInformationMessage(vscode.l10n.t('Download cancelled; it resumes where it stopped next time.'));
          return false;
        }
        throw error;
      }
    }),
  );
}

/** Says that the model set is not downloaded and the built-in one judges meanwhile, with the download at a click. */
function offerDownload(repo: string, section: ModelSection, log: vscode.LogOutputChannel): void {
  const download = vscode.l10n.t('Download');
  const message = vscode.l10n.t('{0} is set as the model but is not downloaded yet: Attest uses its built-in model until it is.', repo);
  log.info(message);
  void Promise.resolve(vscode.window.showInformationMessage(message, download)).then((choice) => {
    if (choice === download) void vscode.commands.executeCommand(MODEL_UI[section].downloadCommand);
  });
}

/** Where a relative model folder is taken from: the first workspace folder, else the home folder. */
function workspaceFolder(): string {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir();
}
