import bcrypt from 'bcryptjs'

/** bcrypt cost of every stored password hash, and of the dummy hash a login of an unknown email is compared with. */
export const PASSWORD_HASH_ROUNDS = 10

export const hashPassword = (password: string) => bcrypt.hash(password, PASSWORD_HASH_ROUNDS)
