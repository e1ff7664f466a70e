/**
 * The Content Manager's "Preview" side panel offers to "Set up preview" on every entry when the app
 * has no preview configured. Keys and API images have nothing to preview: on their entries the
 * panel is left out. Each panel is wrapped rather than picked out by name (names do not survive the
 * admin build's minifier): the wrapper always calls the panel, keeping its hooks in order, and drops
 * its answer when it is the Preview panel on one of the plugin's types.
 */
import { useIntl } from 'react-intl';
import { API_KEY_UID, IMAGE_UID } from '../../../shared/identity';

type Panel = ((props: { model: string }) => { title?: string } | null) & Record<string, unknown>;

const OWN_TYPES = new Set<string>([API_KEY_UID, IMAGE_UID]);

export function withoutPreviewOnOwnTypes(panels: Panel[]): Panel[] {
  return panels.map((panel) => {
    const wrapped = ((props: { model: string }) => {
      const description = panel(props);
      const { formatMessage } = useIntl();
      const previewTitle = formatMessage({ id: 'content-manager.preview.panel.title', defaultMessage: 'Preview' });
      if (OWN_TYPES.has(props.model) && description?.title === previewTitle) return null;
      return description;
    }) as Panel;
    // Static fields (the actions panel's `type`) stay: other plugins look for them.
    return Object.assign(wrapped, panel);
  });
}
