/** What the streamed exports (transactions, audit log) share: the size said as it grows, and saving the file once. */
import { useEffect, useRef } from 'react';

/** A growing download's size: 512 B, 3.4 KB, 12.0 MB. */
export function formatExportBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * Saves a finished export once, as soon as it is complete, by clicking its download link; the link stays for saving
 * it again. Give the returned ref to that link.
 */
export function useSaveWhenDone(status: string, url: string | null) {
  const link = useRef<HTMLAnchorElement>(null);
  const savedUrl = useRef<string | null>(null);
  useEffect(() => {
    if (status === 'done' && url !== null && savedUrl.current !== url) {
      savedUrl.current = url;
      link.current?.click();
    }
  }, [status, url]);
  return link;
}
