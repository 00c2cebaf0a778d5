"""The project's own users: a custom user model signed in by e-mail address."""
