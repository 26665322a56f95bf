// Generated from the resource declarations by `npm run generate:client`; do not edit.

/** Every service of the API with the methods it offers (checked against the server by the tests). */
export const SERVICE_METHODS = {
  'v1/customers': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/projects': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/users': ['find', 'get', 'create', 'patch'],
  'v1/gangs': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/roles': ['find', 'get'],
  'v1/assignment-types': ['find', 'get'],
  'v1/assignment-status-types': ['find', 'get'],
  'v1/assignment-event-types': ['find', 'get'],
  'v1/assignment-event-group-types': ['find', 'get'],
  'v1/time-entry-types': ['find', 'get', 'create', 'patch'],
  'v1/user-absence-types': ['find', 'get', 'create', 'patch'],
  'v1/upload-categories': ['find', 'get', 'create', 'patch'],
  'v1/assignments': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/assignment-events': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/assignment-event-groups': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/time-entries': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/user-absences': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/user-working-times': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/time-sheet-days': ['find', 'get', 'create', 'patch'],
  'v1/time-sheet-weeks': ['find', 'get', 'patch'],
  'v1/time-sheet-months': ['find', 'get', 'patch'],
  'v1/webhook-subscriptions': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/time-sheet-days/by-user': ['find'],
  'v1/time-sheet-weeks/by-user': ['find'],
  'v1/time-sheet-months/by-user': ['find']
} as const
