/** The tray icon and its menu: open the console, the service's status, try again after a failure, quit. */
import { Menu, Tray, nativeImage } from 'electron';
import type { MenuItemConstructorOptions } from 'electron';
import { menuLabel, statusLine } from './status.js';
import type { ServiceState } from './supervisor.js';

export interface ShellTrayOptions {
  /** Icon file; on macOS a template image (black with transparency) so it follows the menu bar's colours. */
  icon: string;
  template: boolean;
  onOpen: () => void;
  onRetry: () => void;
  onQuit: () => void;
}

/** Owns the tray icon; `update()` rebuilds the menu for a new state. */
export class ShellTray {
  readonly #tray: Tray;
  readonly #options: ShellTrayOptions;

  constructor(options: ShellTrayOptions) {
    this.#options = options;
    const image = nativeImage.createFromPath(options.icon);
    if (options.template) image.setTemplateImage(true);
    this.#tray = new Tray(image);
    // Windows opens the console on a click; the menu is on the right button everywhere.
    this.#tray.on('click', () => options.onOpen());
    this.update({ phase: 'idle' });
  }

  update(state: ServiceState): void {
    const status = statusLine(state);
    const items: MenuItemConstructorOptions[] = [
      { label: 'Open console', click: () => this.#options.onOpen() },
      { type: 'separator' },
      { label: menuLabel(status), enabled: false },
    ];
    if (state.phase === 'failed') items.push({ label: 'Try again', click: () => this.#options.onRetry() });
    items.push({ type: 'separator' }, { label: 'Quit Junction', click: () => this.#options.onQuit() });
    this.#tray.setToolTip(menuLabel(`Junction: ${status}`, 120));
    this.#tray.setContextMenu(Menu.buildFromTemplate(items));
  }

  destroy(): void {
    this.#tray.destroy();
  }
}
