//! Return types that PHP must see exactly, so native classes satisfy the
//! signatures of the interfaces they implement.

use ext_php_rs::convert::IntoZval;
use ext_php_rs::flags::DataType;
use ext_php_rs::types::{ZendStr, Zval};

/// A `string` made of arbitrary bytes.
#[derive(Clone, Copy)]
pub struct Bytes<'a>(pub &'a [u8]);

impl IntoZval for Bytes<'_> {
    const TYPE: DataType = DataType::String;
    const NULLABLE: bool = false;
    fn set_zval(self, zval: &mut Zval, _persistent: bool) -> ext_php_rs::error::Result<()> {
        zval.set_zend_string(ZendStr::new(self.0, false));
        Ok(())
    }
}

/// A `DateTimeImmutable` built in PHP.
pub struct DateTime(pub Zval);

impl IntoZval for DateTime {
    const TYPE: DataType = DataType::object("DateTimeImmutable");
    const NULLABLE: bool = false;
    fn set_zval(self, zval: &mut Zval, _persistent: bool) -> ext_php_rs::error::Result<()> {
        *zval = self.0;
        Ok(())
    }
}

/// An `array` held as PHP made it.
pub struct Array(pub Zval);

impl IntoZval for Array {
    const TYPE: DataType = DataType::Array;
    const NULLABLE: bool = false;
    fn set_zval(self, zval: &mut Zval, _persistent: bool) -> ext_php_rs::error::Result<()> {
        *zval = self.0;
        Ok(())
    }
}
