/** The user's own API keys. */
import { KeysView } from './KeysView';

export default function OwnKeysPage() {
  return <KeysView scope="own" />;
}
