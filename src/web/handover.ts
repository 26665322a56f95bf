/**
 * Where the dashboard keeps its API key (this origin's localStorage): the settings page puts a
 * key there and opens /dashboard, or the admin pastes one on the dashboard. A wall screen keeps
 * it across reloads and restarts until someone presses "Change key".
 */
export const DASHBOARD_KEY_STORAGE = 'crewclock.dashboard.apiKey'
