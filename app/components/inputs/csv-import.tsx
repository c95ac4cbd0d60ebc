import { useRef, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { CSV_MAX_BYTES, CSV_MAX_ROWS } from '~/catalogue';
import { Icon } from '~/components/icons';
import { Button } from '~/components/ui/button';
import { isCsvFile, type CsvRow } from '~/utils/csv-file';
import { showToast } from '~/components/ui/toast';
import { errorOf } from './response-error';
import { useDomId } from '~/components/ui/use-dom-id';

export const CSV_TEMPLATE_URL = '/app/blog-topics-template.csv';
export const CSV_FORM_ACTION = '/app/csv';

export type CsvLoaded = {
  prompts: string[];
  rows: CsvRow[];
  duplicates: number;
  emptyRows: number;
  fileName: string;
  /** The draft keeping the rows' own columns (title, keywords, instructions), when some row has them. */
  draftId?: string | null;
};

/**
 * CSV drop zone. Drag and drop or the file picker; highlighted while a file is dragged
 * over; then the topic count and a numbered list, with replace file, download template and back to
 * manual input. It sits inside the generation form: without JavaScript its Upload button posts that
 * form (multipart) to /app/csv, which returns to the workspace with the topics in the text area.
 *
 * `onLoaded` receives the topics (the workspace puts them into the text area); `onBack`
 * returns to manual input (without JavaScript `backHref` is followed).
 */
export function CsvImport({
  onLoaded,
  onBack,
  backHref = '/app',
  initial = null,
}: {
  onLoaded?: (result: CsvLoaded) => void;
  onBack?: () => void;
  backHref?: string;
  initial?: CsvLoaded | null;
}) {
  const { t } = useTranslation('inputs');
  const inputId = useDomId();
  const hintId = useDomId();
  const fileInput = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const [busy, setBusy] = useState(false);
  const [loaded, setLoaded] = useState<CsvLoaded | null>(initial);

  async function upload(file: File) {
    if (!isCsvFile(file)) {
      showToast({ type: 'error', title: t('csv.invalidFileTitle'), description: t('csv.invalidFileBody') });
      return;
    }
    setBusy(true);
    try {
      const body = new FormData();
      body.set('file', file);
      const res = await fetch('/api/upload-csv', {
        method: 'POST',
        body,
        credentials: 'same-origin',
        headers: { accept: 'application/json' },
      });
      if (!res.ok) {
        showToast({ type: 'error', title: t('csv.failedTitle'), description: await errorOf(res) });
        return;
      }
      const data = (await res.json()) as Omit<CsvLoaded, 'fileName'>;
      const result = { ...data, fileName: file.name };
      setLoaded(result);
      onLoaded?.(result);
      showToast({ type: 'success', title: t('csv.uploadedTitle'), description: t('csv.uploadedBody', { count: data.prompts.length }) });
    } catch {
      showToast({ type: 'error', title: t('csv.failedTitle'), description: t('csv.errors.invalidFormat') });
    } finally {
      setBusy(false);
      if (fileInput.current) fileInput.current.value = '';
    }
  }

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer.files?.[0];
    if (file) void upload(file);
  };

  const extras = loaded?.rows.some((r) => r.title || r.keywords || r.instructions);

  return (
    <div className="flex flex-col gap-4" data-testid="csv-import">
      <div>
        <div
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragEnter={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
          data-dragging={dragging || undefined}
          data-testid="csv-drop-zone"
          className={`flex flex-col items-center gap-3 rounded-xl border-2 border-dashed p-6 text-center transition-colors ${
            dragging ? 'border-indigo-600 bg-indigo-50' : 'border-slate-300 bg-white'
          }`}
        >
          <Icon name="file" className="size-8 text-slate-500" />
          <p className="text-sm font-semibold text-slate-900">{dragging ? t('csv.dropActive') : t('csv.dropTitle')}</p>
          <p id={hintId} className="max-w-md text-xs text-slate-600">
            {t('csv.dropHint', { maxRows: CSV_MAX_ROWS.toLocaleString('en-US'), maxMb: CSV_MAX_BYTES / 1024 / 1024 })}
          </p>
          <div className="flex flex-wrap items-center justify-center gap-2">
            <label htmlFor={inputId} className="text-sm font-medium text-slate-800">
              {loaded ? t('csv.replaceFile') : t('csv.fileLabel')}
            </label>
            <input
              ref={fileInput}
              id={inputId}
              name="file"
              type="file"
              accept=".csv,text/csv"
              aria-describedby={hintId}
              onChange={(event) => {
                const file = event.currentTarget.files?.[0];
                if (file) void upload(file);
              }}
              className="max-w-full text-sm text-slate-700 file:mr-3 file:rounded-lg file:border-0 file:bg-indigo-600 file:px-3 file:py-1.5 file:text-sm file:font-semibold file:text-white hover:file:bg-indigo-700"
            />
            {/* Inside the generation form (no nested forms): this button posts that form, as multipart, to /app/csv. */}
            <Button
              type="submit"
              formAction={CSV_FORM_ACTION}
              formMethod="post"
              formEncType="multipart/form-data"
              formNoValidate
              variant="secondary"
              size="sm"
              pending={busy}
              onClick={(event) => {
                event.preventDefault();
                const file = fileInput.current?.files?.[0];
                if (file) void upload(file);
              }}
            >
              {busy ? t('csv.uploading') : t('csv.upload')}
            </Button>
          </div>
        </div>
      </div>

      <div className="flex flex-wrap items-center gap-3">
        <a
          href={CSV_TEMPLATE_URL}
          download="blog-topics-template.csv"
          className="text-sm font-medium text-indigo-700 underline-offset-4 hover:underline"
        >
          {t('csv.downloadTemplate')}
        </a>
        <a
          href={backHref}
          onClick={(event) => {
            if (!onBack) return;
            event.preventDefault();
            onBack();
          }}
          className="text-sm font-medium text-slate-700 underline-offset-4 hover:underline"
        >
          {t('csv.backToManual')}
        </a>
      </div>

      {loaded ? (
        <div className="rounded-xl bg-slate-50 p-4 ring-1 ring-slate-200" data-testid="csv-loaded">
          <p className="text-sm font-semibold text-slate-900" role="status">
            {t('csv.loaded', { count: loaded.prompts.length })}
            <span className="font-normal text-slate-600"> · {loaded.fileName}</span>
          </p>
          {loaded.duplicates || loaded.emptyRows ? (
            <p className="mt-1 text-xs text-slate-600">{t('csv.dropped', { duplicates: loaded.duplicates, empty: loaded.emptyRows })}</p>
          ) : null}
          {extras ? <p className="mt-1 text-xs text-slate-600">{t('csv.extraColumns')}</p> : null}
          <ol aria-label={t('csv.listLabel')} className="mt-3 max-h-60 list-decimal overflow-y-auto pl-8 text-sm text-slate-800">
            {loaded.prompts.map((p, i) => (
              <li key={`${i}-${p}`}>{p}</li>
            ))}
          </ol>
        </div>
      ) : null}
    </div>
  );
}
