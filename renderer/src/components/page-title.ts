/**
 * The browser tab's title, named after the page shown ("Transactions · Junction"), so a person with several tabs open
 * finds the one they want. Every page gets it through `PageHeader`; the pages shown before sign-in call the hook.
 */
import { useEffect } from 'react';

export const PRODUCT_NAME = 'Junction';

/** The tab title for a page's own title. */
export function tabTitle(page: string): string {
  const name = page.trim();
  return name === '' ? PRODUCT_NAME : `${name} · ${PRODUCT_NAME}`;
}

/** Titles the tab after the page while it is shown; the product's name alone while the next page loads. */
export function usePageTitle(page: string): void {
  useEffect(() => {
    document.title = tabTitle(page);
    return () => {
      document.title = PRODUCT_NAME;
    };
  }, [page]);
}
