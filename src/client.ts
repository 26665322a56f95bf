/**
 * `crewclock/client`: the typed client, which lives in its own package, @crewclock/client
 * (client/ in this repository, installable without the server). Re-exported here so that code
 * importing the subpath keeps working.
 */
export * from '../client/src/index'
