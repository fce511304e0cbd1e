// Browser notifications, opt-in: the choice is remembered in localStorage, the permission asked when the
// user turns them on (browsers allow asking only in answer to a click).
import { useState } from 'react';

const KEY = 'ringmaster.notifications';

/** True when the user opted in and the browser allows notifications. */
export function notificationsEnabled(): boolean {
  return typeof Notification !== 'undefined' && Notification.permission === 'granted' && localStorage.getItem(KEY) === 'on';
}

/** The opt-in toggle: [on, toggle, unsupported-or-denied message]. */
export function useNotificationsToggle(): [boolean, () => void, string | null] {
  const [on, setOn] = useState(notificationsEnabled);
  const problem = typeof Notification === 'undefined' ? 'this browser has no notifications' : Notification.permission === 'denied' ? 'notifications are blocked for this site' : null;
  const toggle = () => {
    if (on) {
      localStorage.setItem(KEY, 'off');
      setOn(false);
      return;
    }
    if (typeof Notification === 'undefined') return;
    void Notification.requestPermission().then((permission) => {
      const granted = permission === 'granted';
      localStorage.setItem(KEY, granted ? 'on' : 'off');
      setOn(granted);
    });
  };
  return [on, toggle, problem];
}
