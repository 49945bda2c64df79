/** Every user's API keys (admin). */
import { KeysView } from './KeysView';

export default function AllKeysPage() {
  return <KeysView scope="all" />;
}
