/** `/`: operators land on the dashboard, users on their overview. */
import { Navigate } from 'react-router';
import { isAdmin, useSelf } from './session';

export default function HomeRedirect() {
  const self = useSelf();
  if (!self.data) return null;
  return <Navigate to={isAdmin(self.data) ? '/dashboard' : '/overview'} replace />;
}
