"""Route modules: thin HTTP handlers over assistant/ and the api helpers."""
